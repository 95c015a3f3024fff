/**
 * A trigger sent to subjects no instance holds (issue 38): the real `signalbox` binary against a real local
 * server says so, on stderr, with the commands that show who holds a subject; it is not an error (exit
 * 0), `--json` stays one document on stdout, and a trigger that reached an instance gets no such note.
 */
import { startTestHost, type TestHost } from '../support/local-host';
import { signalbox } from './run-signalbox';

const team = {
  id: 'team-review',
  displayName: 'Team review',
  initialStateId: 'open',
  states: {
    open: { interests: ['team:{{context.team}}'], transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] },
    closed: {},
  },
};

let test: TestHost;
let env: Record<string, string>;

beforeAll(async () => {
  test = await startTestHost('nocandidates');
  env = { SIGNALBOX_URL: `${test.host.url}/api` };
  expect((await test.api.request('PUT', '/api/workflows/team-review', { json: team })).status).toBe(201);
  expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'team-review', instanceId: 'tr-1', context: { team: 'blue' } } })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await test?.host.stop();
});

describe('a trigger no instance holds a subject of', () => {
  it('says that no instance holds the subject and how to see who does, and exits 0', async () => {
    const run = await signalbox(['send', 'Close', '--subject', 'team:red', '--id', 'close-red', '--wait'], { env });
    expect([run.exitCode, run.stderr]).toEqual([0, expect.stringContaining('No instance holds the subject team:red: the trigger Close reached none, and changed nothing.')]);
    expect(run.stdout).toContain('succeeded: 0 of 0 instances processed');
    expect(run.stderr).toContain('signalbox instances --subject team:red');
    expect(run.stderr).toContain('signalbox instance <instanceId>');
    // `watch` of the same operation says it too.
    const watched = await signalbox(['watch', 'close-red'], { env });
    expect([watched.exitCode, watched.stderr]).toEqual([0, expect.stringContaining('No instance holds the subject team:red')]);
  });

  it('names every subject, quotes one the shell would split, and keeps --json one document on stdout', async () => {
    const run = await signalbox(['send', 'Close', '--subject', 'team:red green', '--subject', 'team:amber', '--wait', '--json'], { env });
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ kind: 'trigger', status: 'succeeded', candidates: 0, trigger: { subjects: ['team:red green', 'team:amber'] } });
    expect(run.stderr).toContain('No instance holds any of the subjects team:red green, team:amber');
    expect(run.stderr).toContain("signalbox instances --subject 'team:red green'");
  });

  it('the commands it names find the instance that holds a subject, and show its interests', async () => {
    const holders = await signalbox(['instances', '--subject', 'team:blue'], { env });
    expect([holders.exitCode, holders.stdout]).toEqual([0, expect.stringContaining('tr-1')]);
    const instance = await signalbox(['instance', 'tr-1'], { env });
    expect(instance.stdout).toMatch(/interests\s+.*team:blue/);
  });

  it('says nothing of the kind when the trigger reached an instance', async () => {
    const run = await signalbox(['send', 'Close', '--subject', 'team:blue', '--wait'], { env });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('succeeded: 1 of 1 instance processed');
    expect(run.stderr).not.toContain('No instance holds');
  });
});
