/**
 * The CLI prints data, never control codes: state ids, display names and fault messages that hold terminal
 * escape sequences (OSC 52 clipboard writes, window titles, hyperlinks, clear-screen, C1 CSI) reach the
 * operator's terminal as visible `\u001b` text, from the real binary against a real server. And what the
 * CLI reads is bounded: an endless or trickling response body ends the command (16 MiB, the timeout), and
 * a `--context @file` that is not JSON is reported by position, never by quoting the file.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestHost, type TestHost } from '../support/local-host';
import { signalbox, signalboxOnTerminal, type CliRun } from './run-signalbox';

const OSC52 = '\u001b]52;c;cHduZWQ=\u0007';
const TITLE = '\u001b]0;owned\u0007';
const LINK = '\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\';
const CLEAR = '\u001b[2J\u001b[H';
const C1_CSI = '\u009b31m';
const HOSTILE = `${OSC52}${TITLE}${LINK}${CLEAR}${C1_CSI}\r`;

/** Every C0 control but line feed and tab, DEL, and every C1 control. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const hostileStateId = `waiting${HOSTILE}`;
const hostileWorkflow = {
  id: 'hostile',
  displayName: `Hostile${HOSTILE}`,
  initialStateId: hostileStateId,
  states: {
    [hostileStateId]: {
      displayName: `Waiting${HOSTILE}`,
      transitions: [
        { id: 'go', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Go' }] },
        // Never moves: the operation view says why (WHY), naming the condition by its path, which holds the state id.
        {
          id: 'hold',
          targetStateId: 'done',
          conditions: [
            { type: 'triggerName', name: 'Hold' },
            { type: 'expression', expression: `context.note = ${JSON.stringify(`never${HOSTILE}`)}` },
          ],
        },
        // A fault whose message the workflow's author wrote: the escape sequences are in it.
        {
          id: 'break',
          targetStateId: 'done',
          conditions: [{ type: 'triggerName', name: 'Break' }],
          actions: [{ type: 'setContext', expressions: { broken: `$error(${JSON.stringify(`boom${HOSTILE}`)})` } }],
        },
      ],
    },
    done: {},
  },
};

let testHost: TestHost;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  testHost = await startTestHost('cliterm');
  env = { SIGNALBOX_URL: `${testHost.host.url}/api` };
  dir = mkdtempSync(join(tmpdir(), 'signalbox-terminal-'));
  const { api } = testHost;
  expect((await api.request('PUT', '/api/workflows/hostile', { json: hostileWorkflow })).status).toBe(201);
  for (const instanceId of ['calm', 'faulty']) {
    expect((await api.request('POST', '/api/instances', { json: { workflowId: 'hostile', instanceId, context: { note: `hello${HOSTILE}` } } })).status).toBe(201);
  }
  const accepted = await api.request('POST', '/api/instances/faulty/triggers', { json: { id: 'break-1', name: 'Break' } });
  expect(accepted.status).toBe(202);
  await api.waitForOperation(accepted.body.operationId);
  expect((await api.request('GET', '/api/instances/faulty')).body.status).toBe('faulted');
});

afterAll(async () => {
  await testHost?.host.stop();
});

function expectNoControls(run: CliRun): void {
  expect(run.stdout).not.toMatch(CONTROL);
  expect(run.stderr).not.toMatch(CONTROL);
}

describe('human output', () => {
  it('instances: a hostile state id is shown escaped in the table', async () => {
    const run = await signalbox(['instances', '--workflow', 'hostile'], { env });
    expect(run.exitCode).toBe(0);
    expectNoControls(run);
    expect(run.stdout).toContain('waiting\\u001b]52;c;cHduZWQ=\\u0007');
    expect(run.stdout).toContain('\\u009b31m');
  });

  it('instance: the fault message, state and context are shown escaped', async () => {
    const run = await signalbox(['instance', 'faulty', '--history', '--available'], { env });
    expect(run.exitCode).toBe(0);
    expectNoControls(run);
    expect(run.stdout).toContain('boom\\u001b]52;c;cHduZWQ=\\u0007');
  });

  it('send-to --wait: the operation view shows the fault escaped', async () => {
    const run = await signalbox(['send-to', 'calm', 'Break', '--id', 'break-calm', '--wait'], { env });
    expectNoControls(run);
    expect(run.stdout).toContain('boom\\u001b]52;c;');
  });

  it('send-to --wait: the WHY column of an instance that did not move shows the condition escaped', async () => {
    expect((await testHost.api.request('POST', '/api/instances', { json: { workflowId: 'hostile', instanceId: 'still' } })).status).toBe(201);
    const run = await signalbox(['send-to', 'still', 'Hold', '--id', 'hold-still', '--wait'], { env });
    expectNoControls(run);
    expect(run.stdout).toMatch(/WHY$/m);
    expect(run.stdout).toContain('noTransition');
    expect(run.stdout).toContain('\\u009b31m');
  });

  it('an error answer: the problem detail is shown escaped on stderr', async () => {
    const run = await signalbox(['recover', 'faulty', '--state', `nowhere${HOSTILE}`], { env });
    expect(run.exitCode).toBe(3);
    expectNoControls(run);
    expect(run.stderr).toContain('nowhere\\u001b]52;c;');
  });

  it('a definition file checked offline: hostile ids in the messages are shown escaped', async () => {
    const path = join(dir, 'hostile.json');
    writeFileSync(path, JSON.stringify({ ...hostileWorkflow, initialStateId: `missing${HOSTILE}` }));
    const run = await signalbox(['validate', path]);
    expect(run.exitCode).toBe(1);
    expectNoControls(run);
    expect(run.stdout).toContain('missing\\u001b]52;c;');
  });

  it('diagram of a stored workflow: the Mermaid text holds no control characters', async () => {
    const run = await signalbox(['diagram', 'hostile', '--instance', 'faulty'], { env });
    expect(run.exitCode).toBe(0);
    expectNoControls(run);
  });

  it('on a terminal: colours still work, and no OSC, C1 or clear-screen sequence from the data arrives', async () => {
    const run = await signalboxOnTerminal(['instance', 'faulty'], { env });
    expect(run.exitCode).toBe(0);
    // The CLI's own colours (SGR: ESC [ n m) are the only escape sequences.
    expect(run.stdout).toContain('\u001b[1m');
    // (The pseudo-terminal ends lines with CR LF.)
    const withoutColours = run.stdout.replace(/\u001b\[[\d;]*m/g, '').replace(/\r\n/g, '\n');
    expect(withoutColours).not.toMatch(CONTROL);
    expect(run.stdout).toContain('boom\\u001b]52;c;');
  });
});

describe('--json output', () => {
  it('escapes C0 and C1 controls as \\u escapes, and the JSON still holds the data exactly', async () => {
    const run = await signalbox(['instance', 'faulty', '--json'], { env });
    expect(run.exitCode).toBe(0);
    expectNoControls(run);
    expect(run.stdout).toContain('\\u009b');
    const instance = JSON.parse(run.stdout);
    expect(instance.stateId).toBe(hostileStateId);
    expect(instance.context.note).toBe(`hello${HOSTILE}`);
    expect(instance.fault.message).toContain(`boom${HOSTILE}`);
  });
});

describe('inputs', () => {
  it('--context @file that is not JSON: the error says where, and quotes nothing of the file', async () => {
    const secret = join(dir, 'secrets.env');
    writeFileSync(secret, 'DATABASE_PASSWORD=hunter2-very-secret\nAPI_TOKEN=abc\n');
    const run = await signalbox(['start', 'hostile', '--context', `@${secret}`], { env });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--context is not valid JSON');
    expect(run.stderr).toMatch(/line 1, column 1\b/);
    expect(run.stderr).not.toMatch(/DATABASE|hunter2|PASSWORD/);
  });

  it('--context that breaks off on a later line says which line and column', async () => {
    const path = join(dir, 'broken-context.json');
    writeFileSync(path, '{\n  "a": 1,\n  "password": "hunter2" x\n}\n');
    const run = await signalbox(['start', 'hostile', '--context', `@${path}`], { env });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('line 3, column 25');
    expect(run.stderr).not.toContain('hunter2');
  });

  it('a definition file that is not JSON: validate says where, and quotes nothing of it', async () => {
    const path = join(dir, 'not-a-definition.json');
    writeFileSync(path, 'password: hunter2-very-secret\n');
    const run = await signalbox(['validate', path]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('not valid JSON');
    expect(run.stdout).toContain('line 1, column 1');
    expect(run.stdout).not.toContain('hunter2');
  });
});

describe('response bodies', () => {
  let endless: Server;
  let trickle: Server;
  let endlessUrl: string;
  let trickleUrl: string;

  beforeAll(async () => {
    // Answers 200 with a JSON body that never ends, as fast as the CLI reads it.
    endless = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      response.write('{"id":"');
      const pump = () => {
        while (response.write(chunk)) {
          /* until the socket's buffer is full */
        }
      };
      response.on('drain', pump);
      response.on('close', () => response.off('drain', pump));
      pump();
    });
    // Answers 200 at once, then one byte of body now and then, for ever.
    trickle = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id":"');
      const timer = setInterval(() => response.write('a'), 200);
      response.on('close', () => clearInterval(timer));
    });
    await Promise.all([endless, trickle].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
    endlessUrl = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/api`;
    trickleUrl = `http://127.0.0.1:${(trickle.address() as AddressInfo).port}/api`;
  });

  afterAll(async () => {
    for (const server of [endless, trickle]) server?.closeAllConnections();
    await Promise.all([endless, trickle].map((server) => new Promise((resolve) => server?.close(resolve))));
  });

  it('an endless body ends the command at 16 MiB with a message, not a crash', async () => {
    const run = await signalbox(['instance', 'x'], { env: { SIGNALBOX_URL: endlessUrl } });
    expect(run.exitCode).toBe(4);
    expect(run.stderr).toContain('larger than 16 MiB');
    expect(run.stderr).not.toContain('internal error');
  });

  it('the timeout covers the body: a body that trickles for ever ends the command', async () => {
    const run = await signalbox(['instance', 'x', '--timeout', '2'], { env: { SIGNALBOX_URL: trickleUrl } });
    expect(run.exitCode).toBe(4);
    expect(run.stderr).toContain('did not answer within 2 s');
  });
});
