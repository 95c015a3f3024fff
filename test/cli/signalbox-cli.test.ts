/**
 * The `signalbox` binary as a user runs it: a child process against a real local server on the Azurite
 * jest starts, with stdout piped (not a terminal), and once on a pseudo-terminal for the progress bar.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { prefixedStorageNames } from '../../src/storage/names';
import { httpClient } from '../host/http-client';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { signalbox, signalboxOnTerminal, type CliRun } from './run-signalbox';

const FAN_OUT = 300;
const ESCAPE = '\u001b';

const reviewWorkflow = {
  id: 'review',
  displayName: 'Review',
  initialStateId: 'draft',
  states: {
    draft: {
      interests: ['team:{{context.team}}'],
      transitions: [
        {
          id: 'submit',
          targetStateId: 'submitted',
          conditions: [{ type: 'triggerName', name: 'Submit' }],
          actions: [{ type: 'setContext', expressions: { submittedBy: 'trigger.parameters.by', amount: 'trigger.parameters.amount' } }],
        },
        {
          id: 'break',
          targetStateId: 'submitted',
          conditions: [{ type: 'triggerName', name: 'Break' }],
          actions: [{ type: 'setContext', expressions: { broken: '$error("the action failed")' } }],
        },
      ],
    },
    submitted: {},
  },
};

const brokenWorkflow = {
  id: 'broken',
  displayName: 'Broken',
  initialStateId: 'start',
  states: {
    draft: { transitions: [{ id: 'go', targetStateId: 'nowhere', conditions: [{ type: 'triggerName', name: 'Go' }] }] },
  },
};

let host: LocalHost;
let api: ReturnType<typeof httpClient>;
let dir: string;
let env: Record<string, string>;

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

function expectClean(run: CliRun): void {
  expect(run.stdout).not.toContain(ESCAPE);
  expect(run.stderr).not.toContain(ESCAPE);
}

beforeAll(async () => {
  host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: testConnectionString() },
    port: 0,
    storageNames: prefixedStorageNames(uniquePrefix('cli')),
    logger: silentLogger,
  });
  api = httpClient(host.url);
  dir = mkdtempSync(join(tmpdir(), 'signalbox-cli-'));
  env = { SIGNALBOX_URL: `${host.url}/api` };
});

afterAll(async () => {
  await host?.stop();
});

describe('validate (offline)', () => {
  it('passes valid files with exit 0', async () => {
    const run = await signalbox(['validate', 'examples/expense-claim.json', 'examples/counter.json']);
    expect(run).toMatchObject({ exitCode: 0, stderr: '' });
    expect(run.stdout).toContain('2 files: 0 errors');
    expectClean(run);
  });

  it('reports every error by file and JSON path, like a compiler, with exit 1', async () => {
    const broken = file('broken.json', brokenWorkflow);
    const notJson = file('not-json.json', '{ "id": ');
    const run = await signalbox(['validate', broken, notJson, 'examples/counter.json']);
    expect(run.exitCode).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toContain(`${broken}: initialStateId: error: the initial state "start" is not among the states`);
    expect(lines).toContain(`${broken}: states.draft.transitions[0].targetStateId: error: the target state "nowhere" is not among the states`);
    expect(lines.some((line) => line.startsWith(`${notJson}: $: error: not valid JSON`))).toBe(true);
    expect(lines.at(-1)).toBe('3 files: 3 errors, 0 warnings');
    expectClean(run);
  });

  it('prints JSON that parses with --json', async () => {
    const broken = file('broken-json.json', brokenWorkflow);
    const run = await signalbox(['validate', broken, 'examples/counter.json', '--json']);
    expect(run.exitCode).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.valid).toBe(false);
    expect(report.files).toHaveLength(2);
    expect(report.files[0]).toMatchObject({ file: broken, valid: false });
    expect(report.files[0].errors).toContainEqual({ path: 'initialStateId', message: 'the initial state "start" is not among the states' });
    expect(report.files[1]).toMatchObject({ file: 'examples/counter.json', valid: true, errors: [] });
  });

  it('reports analysis warnings with their code; exit 0, or 1 with --strict', async () => {
    const shadowed = file('shadowed.json', {
      id: 'shadowed',
      displayName: 'Shadowed',
      initialStateId: 'a',
      states: {
        a: {
          transitions: [
            { id: 't1', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Go' }] },
            { id: 't2', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Go' }] },
          ],
        },
        b: {},
        orphan: {},
      },
    });
    const run = await signalbox(['validate', shadowed]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`${shadowed}: states.a.transitions[1]: shadowedTransition: transition "t2" can never be chosen`);
    expect(run.stdout).toContain(`${shadowed}: states.orphan: unreachableState: `);
    expect(run.stdout.trim().split('\n').at(-1)).toBe('1 file: 0 errors, 2 warnings');
    const strict = await signalbox(['validate', '--strict', shadowed, '--json']);
    expect(strict.exitCode).toBe(1);
    const report = JSON.parse(strict.stdout);
    expect(report).toMatchObject({ valid: true, passes: false });
    expect(report.files[0].warnings.map((warning: { code: string }) => warning.code).sort()).toEqual(['shadowedTransition', 'unreachableState']);
  });

  it('draws a definition file as a Mermaid state diagram, offline', async () => {
    const run = await signalbox(['diagram', 'examples/counter.json']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('stateDiagram-v2\n    state "counting" as s0\n    [*] --> s0\n    s0 --> s0: Increment\n');
  });

  it('gives usage errors exit 2: a missing file, an unknown command, a missing argument', async () => {
    const missing = await signalbox(['validate', join(dir, 'absent.json')]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no such file');
    const unknown = await signalbox(['valdate', 'x.json']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'valdate'");
    expect(unknown.stderr).toContain('validate');
    const noArgument = await signalbox(['push']);
    expect(noArgument.exitCode).toBe(2);
    expect(noArgument.stderr).toContain("missing required argument 'file'");
  });

  it('shows help with examples, exit 0', async () => {
    const run = await signalbox(['send', '--help']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('Examples:');
    expect(run.stdout).toContain('--wait');
    expect(run.stdout).toContain('signalbox send Update --subject');
  });
});

describe('against a server', () => {
  it('pushes a new workflow (version 1), then a second version with If-Match', async () => {
    const path = file('review.json', reviewWorkflow);
    const created = await signalbox(['push', path], { env });
    expect(created.exitCode).toBe(0);
    expect(created.stdout).toBe(`review: created, version 1 (${path})\n`);

    file('review.json', { ...reviewWorkflow, displayName: 'Review, second edition' });
    const second = await signalbox(['push', path, '--json'], { env });
    expect(second.exitCode).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual([{ file: path, workflowId: 'review', version: 2, created: false, unchanged: false }]);
    const stored = await api.request('GET', '/api/workflows/review');
    expect(stored.body).toMatchObject({ version: 2, displayName: 'Review, second edition' });
  });

  it('pushes an unchanged file without a new version, and versions it anyway with --force', async () => {
    const path = file('same.json', { ...reviewWorkflow, id: 'same' });
    expect((await signalbox(['push', path], { env })).stdout).toBe(`same: created, version 1 (${path})\n`);
    const again = await signalbox(['push', path], { env });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toBe(`same: unchanged, version 1 (${path})\n`);
    const json = await signalbox(['push', path, '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual([{ file: path, workflowId: 'same', version: 1, created: false, unchanged: true }]);
    const forced = await signalbox(['push', path, '--force'], { env });
    expect(forced.stdout).toBe(`same: version 2 (${path})\n`);
    expect((await api.request('GET', '/api/workflows/same')).body).toMatchObject({ version: 2 });
  });

  it('refuses to push anything when one file is invalid, before any request', async () => {
    const valid = file('fresh.json', { ...reviewWorkflow, id: 'fresh' });
    const broken = file('broken-push.json', brokenWorkflow);
    const run = await signalbox(['push', valid, broken], { env });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(`${broken}: initialStateId: error:`);
    expect(run.stderr).toContain('nothing was pushed');
    expect((await api.request('GET', '/api/workflows/fresh')).status).toBe(404);
  });

  it('starts an instance with a context from a file, and prints it as JSON', async () => {
    const contextFile = file('context.json', { team: 'red' });
    const run = await signalbox(['start', 'review', '--id', 'review-1', '--context', `@${contextFile}`], { env });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('review-1: started review version 2, state draft (waiting)\n');
    const json = await signalbox(['start', 'review', '--id', 'review-2', '--context', '{"team":"red"}', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ id: 'review-2', workflowId: 'review', workflowVersion: 2, stateId: 'draft', context: { team: 'red' } });
    expect((await api.request('GET', '/api/instances/review-1')).body.context).toEqual({ team: 'red' });
  });

  it('prints a problem+json answer (title, detail, each field error) with exit 3', async () => {
    const conflict = await signalbox(['start', 'review', '--id', 'review-1'], { env });
    expect(conflict.exitCode).toBe(3);
    expect(conflict.stderr).toBe('error: Conflict (HTTP 409)\n  Instance "review-1" exists\n');

    const invalid = await signalbox(['start', 'review', '--id', 'x'.repeat(300)], { env });
    expect(invalid.exitCode).toBe(3);
    const lines = invalid.stderr.trim().split('\n');
    expect(lines[0]).toBe('error: Invalid request (HTTP 400)');
    expect(lines.some((line) => /^ {2}instanceId: /.test(line))).toBe(true);

    const unknown = await signalbox(['instance', 'no-such-instance'], { env });
    expect(unknown.exitCode).toBe(3);
    expect(unknown.stderr).toContain('Not found (HTTP 404)');
  });

  it('sends to one instance and waits: the summary and the outcome table', async () => {
    const run = await signalbox(['send-to', 'review-1', 'Submit', '--param', 'by=ann', '--param', 'amount=120', '--id', 'submit-1', '--wait'], { env });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('Operation submit-1 succeeded: 1 of 1 instance processed');
    expect(run.stdout).toMatch(/^INSTANCE\s+OUTCOME\s+TRANSITION\s+FROM\s+TO$/m);
    expect(run.stdout).toMatch(/^review-1\s+transitioned\s+submit\s+draft\s+submitted$/m);
    expectClean(run);
    // k=v values are JSON when they parse: the amount arrives as a number.
    expect((await api.request('GET', '/api/instances/review-1')).body.context).toEqual({ team: 'red', submittedBy: 'ann', amount: 120 });
  });

  it('shows an instance with its history', async () => {
    const run = await signalbox(['instance', 'review-1', '--history'], { env });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^state\s+submitted$/m);
    expect(run.stdout).toMatch(/^status\s+complete$/m);
    expect(run.stdout).toMatch(/transitioned\s+submit-1\s+submit\s+draft\s+submitted\s+complete/);
  });

  it('reports a faulted instance and recovers it; cancels another', async () => {
    const faulted = await signalbox(['send-to', 'review-2', 'Break', '--id', 'break-1', '--wait', '--json'], { env });
    // Exit 5: the operation ran, and its instance faulted; the JSON is printed all the same.
    expect(faulted.exitCode).toBe(5);
    const operation = JSON.parse(faulted.stdout);
    expect(operation.summary.faulted).toBe(1);
    expect(operation.instances[0].error).toContain('the action failed');
    expect(faulted.stderr).toMatch(/^error: 1 instance faulted \(review-2: .*the action failed/);
    const watched = await signalbox(['watch', 'break-1'], { env });
    expect(watched.exitCode).toBe(5);
    expect(watched.stdout).toMatch(/^INSTANCE\s+OUTCOME\s+TRANSITION\s+FROM\s+TO\s+WHY$/m);
    expect(watched.stdout).toMatch(/^review-2\s+faulted\s+break\s+draft\s+.*the action failed/m);

    const recovered = await signalbox(['recover', 'review-2', '--state', 'draft'], { env });
    expect(recovered).toMatchObject({ exitCode: 0, stdout: 'review-2: recovered to state draft (waiting)\n' });
    const cancelled = await signalbox(['cancel', 'review-2'], { env });
    expect(cancelled).toMatchObject({ exitCode: 0, stdout: 'review-2: cancelled in state draft\n' });
    const again = await signalbox(['cancel', 'review-2'], { env });
    expect(again.exitCode).toBe(3);
    expect(again.stderr).toContain('Conflict (HTTP 409)');
  });

  it('says why an instance did not move: the names its state answers, the entry condition that was false', async () => {
    const guarded = {
      id: 'guarded-claim',
      displayName: 'Guarded claim',
      initialStateId: 'draft',
      states: {
        draft: {
          transitions: [
            { id: 'submit', targetStateId: 'review', conditions: [{ type: 'triggerName', name: 'Submit' }] },
            { id: 'drop', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Drop' }] },
          ],
        },
        review: {
          entryConditions: [{ id: 'has-amount', type: 'expression', expression: '$exists(context.amount)' }],
          transitions: [{ id: 'finish', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Finish' }] }],
        },
        done: {},
      },
    };
    expect((await signalbox(['push', file('guarded-claim.json', guarded)], { env })).exitCode).toBe(0);
    expect((await signalbox(['start', 'guarded-claim', '--id', 'gc-1'], { env })).exitCode).toBe(0);
    const wrongName = await signalbox(['send-to', 'gc-1', 'Approve', '--wait'], { env });
    expect(wrongName.exitCode).toBe(0);
    expect(wrongName.stdout).toMatch(/^gc-1\s+noTransition\s+draft\s+this state answers Submit, Drop$/m);
    const blocked = await signalbox(['send-to', 'gc-1', 'Submit', '--wait'], { env });
    expect(blocked.exitCode).toBe(0);
    expect(blocked.stdout).toMatch(/^gc-1\s+entryBlocked\s+submit\s+draft\s+review\s+states\.review\.entryConditions\[0\]: \$exists\(context\.amount\) → false$/m);
  });

  it('says why a started instance faulted at once, with exit 5', async () => {
    const strict = {
      id: 'strict-start',
      displayName: 'Strict start',
      initialStateId: 'open',
      states: {
        open: {
          entryConditions: [{ id: 'has-owner', type: 'expression', expression: '$exists(context.owner)' }],
          transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }],
        },
        closed: {},
      },
    };
    expect((await signalbox(['push', file('strict-start.json', strict)], { env })).exitCode).toBe(0);
    const run = await signalbox(['start', 'strict-start', '--id', 'ss-1'], { env });
    expect(run.exitCode).toBe(5);
    expect(run.stdout).toBe('ss-1: started strict-start version 1, state open (faulted)\n');
    expect(run.stderr).toBe('error: ss-1 faulted: entry condition [0] (expression "has-owner") of the initial state "open" is false: $exists(context.owner) → false\n');
  });

  it('draws a stored workflow with an instance highlighted, from the server', async () => {
    const run = await signalbox(['diagram', 'review', '--instance', 'review-1'], { env });
    expect(run.exitCode).toBe(0);
    expect(run.stdout.startsWith('stateDiagram-v2\n')).toBe(true);
    expect(run.stdout).toMatch(/s\d --> s\d: Submit/);
    expect(run.stdout).toMatch(/^ {4}class s\d current$/m);
    const missing = await signalbox(['diagram', 'no-such-workflow'], { env });
    expect(missing.exitCode).toBe(3);
    expect(missing.stderr).toContain('(HTTP 404)');
  });

  it('sends the API key given by --key (or SIGNALBOX_API_KEY) as x-functions-key', async () => {
    const locked = await startLocalHost({
      env: { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_API_KEY: 'cli-test-key' },
      port: 0,
      storageNames: prefixedStorageNames(uniquePrefix('clikey')),
      logger: silentLogger,
    });
    try {
      const url = `${locked.url}/api`;
      const refused = await signalbox(['instances', '--url', url]);
      expect(refused.exitCode).toBe(3);
      expect(refused.stderr).toContain('(HTTP 401)');
      expect((await signalbox(['instances', '--url', url, '--key', 'cli-test-key'])).exitCode).toBe(0);
      expect((await signalbox(['instances'], { env: { SIGNALBOX_URL: url, SIGNALBOX_API_KEY: 'cli-test-key' } })).exitCode).toBe(0);
    } finally {
      await locked.stop();
    }
  });

  it('says clearly when the server cannot be reached, with exit 4', async () => {
    const port = await closedPort();
    const run = await signalbox(['instances', '--url', `http://127.0.0.1:${port}/api`]);
    expect(run.exitCode).toBe(4);
    expect(run.stderr).toBe(`error: cannot reach the Signalbox API at http://127.0.0.1:${port}/api (connection refused); is the server running? Set --url or SIGNALBOX_URL\n`);
    expect(run.stdout).toBe('');
  });
});

const childWorkflow = {
  id: 'stage-child',
  displayName: 'Stage child',
  initialStateId: 'open',
  states: { open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] }, closed: {} },
};

/** Version 1; version 2 renames `review` to `checking`. `draft` arms a timer and can start a child. */
function stagesWorkflow(reviewStateId: string) {
  return {
    id: 'stages',
    displayName: 'Stages',
    initialStateId: 'draft',
    states: {
      draft: {
        interests: ['stages'],
        transitions: [
          {
            id: 'submit',
            targetStateId: reviewStateId,
            conditions: [{ type: 'triggerName', name: 'Submit' }],
            actions: [{ type: 'setContext', expressions: { submittedBy: 'trigger.parameters.by' } }],
          },
          {
            id: 'spawn',
            targetStateId: 'draft',
            conditions: [{ type: 'triggerName', name: 'Spawn' }],
            actions: [{ type: 'startInstance', workflowId: 'stage-child', instanceId: '{{instance.id}}-child' }],
          },
          { id: 'remind', targetStateId: 'draft', timer: { after: 'PT1H' }, actions: [{ type: 'setContext', values: { reminded: true } }] },
        ],
      },
      [reviewStateId]: { transitions: [{ id: 'approve', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Approve' }] }] },
      done: {},
    },
  };
}

describe('operating from the command line: dry runs, migrations, bulk actions, suspension, deletion', () => {
  async function instanceAt(instanceId: string) {
    const answer = await api.request('GET', `/api/instances/${instanceId}`);
    expect(answer.status).toBe(200);
    const history = await api.request('GET', `/api/instances/${instanceId}/history`);
    return { ...answer.body, historyLength: history.body.items.length };
  }

  beforeAll(async () => {
    const pushed = await signalbox(['push', file('stage-child.json', childWorkflow), file('stages.json', stagesWorkflow('review'))], { env });
    expect(pushed.exitCode).toBe(0);
    for (const instanceId of ['s-1', 's-2', 's-3', 's-4']) {
      expect((await api.request('POST', '/api/instances', { json: { workflowId: 'stages', instanceId } })).status).toBe(201);
    }
  });

  it('shows the timers an instance has armed', async () => {
    const run = await signalbox(['instance', 's-1'], { env });
    expect(run.exitCode).toBe(0);
    const { timers } = await instanceAt('s-1');
    expect(timers).toEqual([{ transitionId: 'remind', dueAt: expect.any(String) }]);
    expect(run.stdout).toMatch(new RegExp(`^timers\\s+remind due ${timers[0].dueAt.replace(/[.]/g, '\\.')}$`, 'm'));
  });

  it('send-to --dry-run shows what would happen and changes nothing', async () => {
    const before = await instanceAt('s-1');
    const run = await signalbox(['send-to', 's-1', 'Submit', '--param', 'by=ann', '--dry-run'], { env });
    expect(run.exitCode).toBe(0);
    expectClean(run);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('Dry run of Submit: 1 instance; nothing was saved, leased or sent');
    expect(lines[1]).toBe('  transitioned 1');
    expect(run.stdout).toMatch(/^s-1\s+transitioned\s+transition submit\s+draft → review$/m);
    expect(run.stdout).toMatch(/^ {4}true\s+states\.draft\.transitions\[0\]\.conditions\[0\]\s+triggerName$/m);
    expect(run.stdout).toContain('  context after: {"submittedBy":"ann"}');
    expect(run.stdout).toMatch(/^ {4}.*\(setContext\)\s+setContext$/m);

    const spawn = await signalbox(['send-to', 's-1', 'Spawn', '--dry-run', '--json'], { env });
    expect(spawn.exitCode).toBe(0);
    const dryRun = JSON.parse(spawn.stdout);
    expect(dryRun).toMatchObject({ truncated: false, instances: [{ instanceId: 's-1', outcome: 'transitioned', transitionId: 'spawn', fromStateId: 'draft', toStateId: 'draft' }] });
    expect(dryRun.instances[0].actions.map((action: { type: string }) => action.type)).toEqual(['startInstance']);

    const after = await instanceAt('s-1');
    expect(after).toEqual(before);
    expect((await api.request('GET', '/api/instances/s-1-child')).status).toBe(404);
  });

  it('send --dry-run decides every interested instance, as JSON', async () => {
    const etags = await Promise.all(['s-1', 's-2', 's-3', 's-4'].map(async (id) => (await instanceAt(id)).etag));
    const run = await signalbox(['send', 'Submit', '--subject', 'stages', '--param', 'by=bob', '--dry-run', '--json'], { env });
    expect(run.exitCode).toBe(0);
    const dryRun = JSON.parse(run.stdout);
    expect(dryRun.instances.map((result: { instanceId: string }) => result.instanceId).sort()).toEqual(['s-1', 's-2', 's-3', 's-4']);
    for (const result of dryRun.instances) {
      expect(result).toMatchObject({ outcome: 'transitioned', toStateId: 'review', contextAfter: { submittedBy: 'bob' } });
    }
    expect(await Promise.all(['s-1', 's-2', 's-3', 's-4'].map(async (id) => (await instanceAt(id)).etag))).toEqual(etags);
  });

  it('a child started by an action shows its parent, and instances --parent lists it', async () => {
    expect((await signalbox(['send-to', 's-1', 'Spawn', '--wait'], { env })).exitCode).toBe(0);
    let child = await api.request('GET', '/api/instances/s-1-child');
    for (let attempt = 0; child.status === 404 && attempt < 100; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      child = await api.request('GET', '/api/instances/s-1-child');
    }
    expect(child.status).toBe(200);
    const [shown, children] = await Promise.all([signalbox(['instance', 's-1-child'], { env }), signalbox(['instances', '--parent', 's-1', '--json'], { env })]);
    expect(shown.stdout).toMatch(/^parent\s+s-1$/m);
    expect(JSON.parse(children.stdout).items.map((item: { id: string }) => item.id)).toEqual(['s-1-child']);
  });

  it('migrate --dry-run reports and changes nothing; migrate --wait moves the instances to the new version', async () => {
    expect((await signalbox(['send-to', 's-2', 'Submit', '--param', 'by=cy', '--wait'], { env })).exitCode).toBe(0);
    expect((await api.request('POST', '/api/instances/s-4/cancel')).status).toBe(200);
    const pushed = await signalbox(['push', file('stages.json', stagesWorkflow('checking'))], { env });
    expect(pushed.stdout).toContain('stages: version 2');
    const before = await instanceAt('s-2');

    const report = await signalbox(['migrate', 'stages', '--from', '1', '--to', '2', '--map', 'review=checking', '--dry-run'], { env });
    expect(report.exitCode).toBe(0);
    expectClean(report);
    expect(report.stdout).toContain('Dry run: migrating stages from version 1 to 2 would move 3 and leave 1 instance; nothing was changed');
    expect(report.stdout).toMatch(/^FROM\s+TO\s+COUNT\s+SAMPLE$/m);
    expect(report.stdout).toMatch(/^draft\s+draft\s+2\s+s-1, s-3$/m);
    expect(report.stdout).toMatch(/^review\s+checking\s+1\s+s-2$/m);
    expect(report.stdout).toMatch(/^draft\s+1\s+.*cancelled.*\s+s-4$/m);
    expect(await instanceAt('s-2')).toEqual(before);

    // --to defaults to the latest version.
    const migrated = await signalbox(['migrate', 'stages', '--from', '1', '--map', 'review=checking', '--wait', '--json'], { env });
    expect(migrated.exitCode).toBe(0);
    const operation = JSON.parse(migrated.stdout);
    expect(operation).toMatchObject({ kind: 'migration', status: 'succeeded', migration: { workflowId: 'stages', fromVersion: 1, toVersion: 2, stateMap: { review: 'checking' } } });
    expect(operation.summary).toMatchObject({ migrated: 3, notMigratable: 1 });
    expect(await instanceAt('s-2')).toMatchObject({ workflowVersion: 2, stateId: 'checking', context: { submittedBy: 'cy' } });
    expect(await instanceAt('s-1')).toMatchObject({ workflowVersion: 2, stateId: 'draft' });
  });

  it("bulk cancel --wait cancels one state's instances and no other", async () => {
    const run = await signalbox(['bulk', 'cancel', '--workflow', 'stages', '--state', 'draft', '--status', 'waiting', '--wait'], { env });
    expect(run.exitCode).toBe(0);
    expectClean(run);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^Operation \S+ \(cancel stages instances\) succeeded: 2 of 2 instances processed$/);
    expect(lines[1]).toBe('  cancelled 2');
    expect(run.stdout).toMatch(/^INSTANCE\s+OUTCOME/m);
    expect(run.stdout).toMatch(/^s-1\s+cancelled\b/m);
    expect(run.stdout).toMatch(/^s-3\s+cancelled\b/m);
    expect((await instanceAt('s-1')).status).toBe('cancelled');
    expect((await instanceAt('s-3')).status).toBe('cancelled');
    expect(await instanceAt('s-2')).toMatchObject({ status: 'waiting', stateId: 'checking' });
  });

  it('suspends and resumes an instance', async () => {
    const suspended = await signalbox(['suspend', 's-2'], { env });
    expect(suspended).toMatchObject({ exitCode: 0, stdout: 's-2: suspended in state checking (triggers answer notActive until resumed)\n' });
    expect((await instanceAt('s-2')).status).toBe('suspended');
    const again = await signalbox(['suspend', 's-2'], { env });
    expect(again.exitCode).toBe(3);
    expect(again.stderr).toContain('Conflict (HTTP 409)');
    const resumed = await signalbox(['resume', 's-2', '--json'], { env });
    expect(resumed.exitCode).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id: 's-2', status: 'waiting' });
  });

  it('deletes an instance (--force while it waits): 404 afterwards', async () => {
    const refused = await signalbox(['delete', 's-2'], { env });
    expect(refused.exitCode).toBe(3);
    expect(refused.stderr).toContain('Conflict (HTTP 409)');
    expect((await api.request('GET', '/api/instances/s-2')).status).toBe(200);
    const deleted = await signalbox(['delete', 's-2', '--force'], { env });
    expect(deleted).toMatchObject({ exitCode: 0, stdout: 's-2: deleted, with its history\n' });
    expect((await api.request('GET', '/api/instances/s-2')).status).toBe(404);
    const shown = await signalbox(['instance', 's-2'], { env });
    expect(shown.exitCode).toBe(3);
    expect(shown.stderr).toContain('Not found (HTTP 404)');
  });

  it('deletes a workflow once a bulk delete has removed its instances', async () => {
    const refused = await signalbox(['delete-workflow', 'stages'], { env });
    expect(refused.exitCode).toBe(3);
    expect(refused.stderr).toContain('(HTTP 409)');
    // Only a workflow id and --force: refused before anything is deleted, with the count to confirm.
    const unconfirmed = await signalbox(['bulk', 'delete', '--workflow', 'stages', '--force'], { env });
    expect(unconfirmed.exitCode).toBe(2);
    expect(unconfirmed.stderr).toContain('the filter matches 3 instances now; to delete them, add --expect-count 3');
    const dryRun = await signalbox(['bulk', 'delete', '--workflow', 'stages', '--force', '--dry-run'], { env });
    expect(dryRun).toMatchObject({ exitCode: 0, stdout: 'Dry run: bulk delete would act on 3 instances of stages now; nothing was changed\n' });
    const miscounted = await signalbox(['bulk', 'delete', '--workflow', 'stages', '--force', '--expect-count', '2'], { env });
    expect(miscounted.exitCode).toBe(3);
    expect(miscounted.stderr).toContain('matches 3 instances, not 2');
    const purged = await signalbox(['bulk', 'delete', '--workflow', 'stages', '--force', '--expect-count', '3', '--wait', '--json'], { env });
    expect(purged.exitCode).toBe(0);
    expect(JSON.parse(purged.stdout).summary).toMatchObject({ deleted: 3 });
    const deleted = await signalbox(['delete-workflow', 'stages'], { env });
    expect(deleted).toMatchObject({ exitCode: 0, stdout: 'stages: deleted, with every version\n' });
    expect((await api.request('GET', '/api/workflows/stages')).status).toBe(404);
  });

  it('refuses bad command lines with exit 2, a refused request with 3 and an unreachable server with 4', async () => {
    const port = await closedPort();
    const [noToState, toStateElsewhere, noFrom, badMap, dryRunWait, badAction, badVersion, unreachable] = await Promise.all([
      signalbox(['bulk', 'recover', '--workflow', 'stages'], { env }),
      signalbox(['bulk', 'cancel', '--workflow', 'stages', '--to-state', 'draft'], { env }),
      signalbox(['migrate', 'stages', '--to', '2'], { env }),
      signalbox(['migrate', 'stages', '--from', '1', '--map', 'review'], { env }),
      signalbox(['send-to', 's-1', 'Submit', '--dry-run', '--wait'], { env }),
      signalbox(['bulk', 'archive', '--workflow', 'stages'], { env }),
      signalbox(['migrate', 'stage-child', '--from', '1', '--to', '9', '--dry-run'], { env }),
      signalbox(['bulk', 'cancel', '--workflow', 'stages', '--url', `http://127.0.0.1:${port}/api`]),
    ]);
    expect(noToState).toMatchObject({ exitCode: 2, stderr: 'error: bulk recover needs --to-state <stateId> (the state whose entry runs again)\n' });
    expect(toStateElsewhere).toMatchObject({ exitCode: 2, stderr: 'error: --to-state is only for bulk recover\n' });
    expect(noFrom.exitCode).toBe(2);
    expect(noFrom.stderr).toContain("required option '--from <n>' not specified");
    expect(badMap).toMatchObject({ exitCode: 2, stderr: 'error: --map "review" is not oldState=newState\n' });
    expect(dryRunWait.exitCode).toBe(2);
    expect(badAction.exitCode).toBe(2);
    expect(badAction.stderr).toContain('Allowed choices are cancel, recover, suspend, resume, delete');
    expect(badVersion.exitCode).toBe(3);
    expect(badVersion.stderr.split('\n')[0]).toBe('error: Invalid request (HTTP 400)');
    expect(badVersion.stderr).toMatch(/^ {2}toVersion: /m);
    expect(unreachable.exitCode).toBe(4);
    expect(unreachable.stderr).toContain(`cannot reach the Signalbox API at http://127.0.0.1:${port}/api (connection refused)`);
  });
});

describe(`a trigger fanned out to ${FAN_OUT} instances`, () => {
  beforeAll(async () => {
    expect((await signalbox(['push', 'examples/counter.json'], { env })).exitCode).toBe(0);
    let next = 0;
    const createSome = async () => {
      while (next < FAN_OUT) {
        const index = next++;
        const created = await api.request('POST', '/api/instances', { json: { workflowId: 'counter', instanceId: `counter-${String(index).padStart(3, '0')}`, context: { count: 0 } } });
        expect(created.status).toBe(201);
      }
    };
    await Promise.all(Array.from({ length: 8 }, createSome));
  }, 180_000);

  it('send --wait with stdout not a terminal: no progress bar escapes, the final summary is right', async () => {
    const run = await signalbox(['send', 'Increment', '--subject', 'counters', '--id', 'fan-1', '--wait', '--results', '3'], { env, timeoutInMs: 170_000 });
    expect(run.exitCode).toBe(0);
    expectClean(run);
    expect(run.stdout).not.toMatch(/[\u2588\u2591]/); // the bar's characters
    expect(run.stdout).not.toContain('\r');
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`Operation fan-1 succeeded: ${FAN_OUT} of ${FAN_OUT} instances processed`);
    expect(lines[1]).toBe(`  transitioned ${FAN_OUT}`);
    expect(lines.filter((line) => /^counter-\d{3}\s+transitioned\s+increment\s+counting\s+counting$/.test(line))).toHaveLength(3);
    expect(run.stdout).toContain(`… and ${FAN_OUT - 3} more`);
    const sample = await api.request('GET', '/api/instances/counter-123');
    expect(sample.body.context).toEqual({ count: 1 });
  }, 180_000);

  it('watch --json prints the finished operation as JSON', async () => {
    const run = await signalbox(['watch', 'fan-1', '--json'], { env });
    expect(run.exitCode).toBe(0);
    const operation = JSON.parse(run.stdout);
    expect(operation).toMatchObject({ id: 'fan-1', status: 'succeeded', candidates: FAN_OUT });
    expect(operation.summary.transitioned).toBe(FAN_OUT);
    expect(operation.instances).toHaveLength(FAN_OUT);
  });

  it('lists instances: one page with a hint, every page with --all, JSON that parses', async () => {
    const page = await signalbox(['instances', '--workflow', 'counter', '--page-size', '50'], { env });
    expect(page.exitCode).toBe(0);
    const rows = page.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^ID\s+WORKFLOW\s+VERSION\s+STATE\s+STATUS\s+UPDATED$/);
    expect(rows).toHaveLength(51);
    expect(page.stderr).toContain('More instances: add --all');

    const all = await signalbox(['instances', '--workflow', 'counter', '--all', '--page-size', '120'], { env });
    expect(all.stdout.trim().split('\n')).toHaveLength(FAN_OUT + 1);
    expect(all.stderr).toBe('');

    const json = await signalbox(['instances', '--workflow', 'counter', '--status', 'waiting', '--all', '--json'], { env });
    const { items } = JSON.parse(json.stdout);
    expect(items).toHaveLength(FAN_OUT);
    expect(new Set(items.map((item: { id: string }) => item.id)).size).toBe(FAN_OUT);
    expect(items.every((item: { context: { count: number } }) => item.context.count === 1)).toBe(true);
  });

  it('draws a progress bar on a terminal that advances to the total, then the summary', async () => {
    const run = await signalboxOnTerminal(['send', 'Increment', '--subject', 'counters', '--id', 'fan-2', '--wait', '--results', '0'], { env, timeoutInMs: 170_000 });
    expect(run.exitCode).toBe(0);
    // Each redraw returns to the line start and paints "<bar> <processed>/<total> instances | <status> | <elapsed>".
    const frames = [...run.stdout.matchAll(/([\u2588\u2591]+)(?:\u001b\[\d+m)* (\d+)\/(\d+|\?) instances \| (\w+)/g)].map((match) => ({
      filled: [...match[1]!].filter((character) => character === '\u2588').length,
      processed: Number(match[2]),
      total: match[3],
      status: match[4],
    }));
    expect(frames.length).toBeGreaterThanOrEqual(2);
    const first = frames[0]!;
    const last = frames.at(-1)!;
    expect(first.processed).toBeLessThan(FAN_OUT);
    expect(first.status).not.toBe('succeeded');
    expect(last).toEqual({ filled: 30, processed: FAN_OUT, total: String(FAN_OUT), status: 'succeeded' });
    for (let index = 1; index < frames.length; index += 1) {
      expect(frames[index]!.processed).toBeGreaterThanOrEqual(frames[index - 1]!.processed);
      expect(frames[index]!.filled).toBeGreaterThanOrEqual(frames[index - 1]!.filled);
    }
    expect(run.stdout).toContain(ESCAPE); // a terminal gets colours and cursor control
    expect(run.stdout).toMatch(new RegExp(`Operation fan-2 (?:\u001b\\[\\d+m)?succeeded(?:\u001b\\[\\d+m)?: ${FAN_OUT} of ${FAN_OUT} instances processed`));
  }, 180_000);
});

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
