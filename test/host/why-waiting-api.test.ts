/**
 * "Why is it stuck?" over real HTTP on Azurite: an instance in each situation the engine can put one in
 * (a trigger, a timer, children, suspended with held notifications, faulted, a lease held by a crashed
 * worker, stranded, final) answers its class, and the workflow's counts group them. A pending retry is
 * written by the retry engine, which this engine does not have yet: its class is tested on the pure function.
 */
import { BlobServiceClient } from '@azure/storage-blob';
import { leaseBlobName } from '../../src/leasing/lease-name';
import { waitingAnswerSchema, waitingSummarySchema } from '../../src/host/http/instances/instance-waiting';
import { startTestHost, type TestHost } from '../support/local-host';
import { testConnectionString } from '../support/storage';

const parcel = {
  id: 'why-parcel',
  displayName: 'Parcel',
  initialStateId: 'packing',
  states: { packing: { transitions: [{ id: 'ship', targetStateId: 'delivered', conditions: [{ type: 'triggerName', name: 'Shipped' }] }] }, delivered: {} },
};

const order = {
  id: 'why-order',
  displayName: 'Order',
  initialStateId: 'new',
  states: {
    new: {
      transitions: [
        { id: 'approve', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Approve' }] },
        { id: 'remind', targetStateId: 'new', timer: { after: 'P1D' } },
        {
          id: 'split',
          targetStateId: 'fulfilling',
          conditions: [{ type: 'triggerName', name: 'Split' }],
          actions: [{ type: 'startInstance', workflowId: 'why-parcel', instanceId: '{{instance.id}}-parcel' }],
        },
        { id: 'break', targetStateId: 'broken', conditions: [{ type: 'triggerName', name: 'Break' }] },
        { id: 'sleep', targetStateId: 'sleeping', conditions: [{ type: 'triggerName', name: 'Sleep' }] },
      ],
    },
    fulfilling: { transitions: [{ id: 'shipped', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'ChildCompleted' }] }] },
    broken: {
      entryActions: [{ type: 'setContext', expressions: { x: '$error("the allow-list refused it")' } }],
      transitions: [{ id: 'fix', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Fix' }] }],
    },
    // A timer whose condition never holds: it fires at once, takes nothing, and is spent.
    sleeping: { transitions: [{ id: 'wake', targetStateId: 'done', timer: { after: 'PT0S' }, conditions: [{ type: 'expression', expression: 'false' }] }] },
    done: {},
  },
};

let test: TestHost;

beforeAll(async () => {
  test = await startTestHost('why');
  for (const definition of [parcel, order]) expect((await test.api.request('PUT', `/api/workflows/${definition.id}`, { json: definition })).status).toBe(201);
});

afterAll(async () => {
  await test?.host.stop();
});

async function create(instanceId: string): Promise<void> {
  expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'why-order', instanceId } })).status).toBe(201);
}

async function send(instanceId: string, name: string): Promise<void> {
  expect((await test.api.request('POST', `/api/instances/${instanceId}/triggers`, { json: { name }, headers: { prefer: 'wait=30' } })).status).toBe(200);
}

async function why(instanceId: string) {
  const answer = await test.api.request('GET', `/api/instances/${encodeURIComponent(instanceId)}/waiting`);
  expect(answer.status).toBe(200);
  return waitingAnswerSchema.parse(answer.body);
}

/** Asks until `done` holds (the relay and timers work after the answer), within a generous deadline. */
async function whyUntil(instanceId: string, done: (answer: Awaited<ReturnType<typeof why>>) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await why(instanceId);
    if (done(answer) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const classesOf = (answer: Awaited<ReturnType<typeof why>>) => answer.reasons.map((reason) => reason.class);

describe('GET /api/instances/{id}/waiting', () => {
  it('waiting for a timer and for triggers: the timer first, then the names its state answers and the subjects that reach it', async () => {
    await create('w-trigger');
    const answer = await why('w-trigger');
    expect(answer).toMatchObject({ instanceId: 'w-trigger', workflowId: 'why-order', stateId: 'new', status: 'waiting', class: 'waitingForTimer' });
    expect(classesOf(answer)).toEqual(['waitingForTimer', 'waitingForTrigger']);
    const [timer, trigger] = answer.reasons;
    expect(timer).toMatchObject({ class: 'waitingForTimer', timers: [{ transitionId: 'remind', targetStateId: 'new', overdue: false }] });
    if (trigger?.class !== 'waitingForTrigger') throw new Error('no trigger reason');
    expect(trigger.triggers.map((item) => item.triggerNames[0])).toEqual(['Approve', 'Split', 'Break', 'Sleep']);
    // Its id, and the trigger names its transitions answer (a broadcast to a name reaches it).
    expect(trigger.subjects).toEqual(['Approve', 'Break', 'Sleep', 'Split', 'w-trigger']);
  });

  it('waiting for children: which, in what state', async () => {
    await create('w-children');
    await send('w-children', 'Split');
    const answer = await whyUntil('w-children', (found) => found.class === 'waitingForChildren');
    expect(answer.class).toBe('waitingForChildren');
    expect(answer.reasons[0]).toEqual({
      class: 'waitingForChildren',
      children: [{ instanceId: 'w-children-parcel', workflowId: 'why-parcel', stateId: 'packing', status: 'waiting' }],
      moreChildren: 0,
    });
  });

  it('suspended, with the notification it holds (its child completed meanwhile)', async () => {
    await create('w-held');
    await send('w-held', 'Split');
    await whyUntil('w-held', (found) => found.class === 'waitingForChildren');
    expect((await test.api.request('POST', '/api/instances/w-held/suspend')).status).toBe(200);
    await send('w-held-parcel', 'Shipped');
    const answer = await whyUntil('w-held', (found) => classesOf(found).includes('heldNotifications'));
    expect(classesOf(answer)).toEqual(['suspended', 'heldNotifications']);
    expect(answer.reasons[0]).toMatchObject({ class: 'suspended', resume: { cli: 'signalbox resume w-held', http: { method: 'POST', path: '/api/instances/w-held/resume' } } });
    expect(answer.reasons[1]).toMatchObject({ class: 'heldNotifications', count: 1, triggers: [{ name: 'ChildCompleted' }] });
  });

  it('faulted: the cause and the recover command', async () => {
    await create('w-fault');
    await send('w-fault', 'Break');
    const answer = await why('w-fault');
    expect(answer.class).toBe('faulted');
    expect(answer.reasons[0]).toMatchObject({
      class: 'faulted',
      cause: expect.stringContaining('the allow-list refused it'),
      recover: { cli: 'signalbox recover w-fault --state broken', http: { method: 'POST', path: '/api/instances/w-fault/recover', body: { stateId: 'broken' } } },
    });
  });

  it('a lease held by a crashed worker: held elsewhere, expiring within a minute', async () => {
    await create('w-lease');
    const blob = BlobServiceClient.fromConnectionString(testConnectionString()).getContainerClient(test.storageNames.leaseContainer).getBlockBlobClient(leaseBlobName('w-lease'));
    // The "crashed worker": a lease taken from outside the host and never renewed nor released.
    const lease = blob.getBlobLeaseClient();
    await lease.acquireLease(60);
    try {
      const answer = await why('w-lease');
      expect(answer.class).toBe('leaseHeld');
      expect(answer.reasons[0]).toMatchObject({ class: 'leaseHeld', heldByThisProcess: false, infinite: false, possiblyCrashedWorker: true });
      expect(classesOf(answer)).toEqual(['leaseHeld', 'waitingForTimer', 'waitingForTrigger']);
    } finally {
      await lease.releaseLease();
    }
    expect((await why('w-lease')).class).toBe('waitingForTimer');
  });

  it('stranded: its only timer fired and took nothing', async () => {
    await create('w-stranded');
    await send('w-stranded', 'Sleep');
    const answer = await whyUntil('w-stranded', (found) => found.class === 'stranded');
    expect(answer.reasons).toEqual([{ class: 'stranded', stateId: 'sleeping' }]);
  });

  it('final: a complete instance answers the class `final`; an unknown one is 404', async () => {
    await create('w-final');
    await send('w-final', 'Approve');
    const answer = await why('w-final');
    expect(answer).toMatchObject({ class: 'final', status: 'complete', reasons: [{ class: 'final', status: 'complete' }] });
    expect((await test.api.request('GET', '/api/instances/nobody/waiting')).status).toBe(404);
  });
});

describe('GET /api/workflows/{id}/waiting', () => {
  it('counts the instances that are not final per class and state, with the oldest and fault causes grouped', async () => {
    await create('w-fault-2');
    await send('w-fault-2', 'Break');
    const answer = await test.api.request('GET', '/api/workflows/why-order/waiting');
    expect(answer.status).toBe(200);
    const summary = waitingSummarySchema.parse(answer.body);
    expect(summary.truncated).toBe(false);
    const group = (cls: string, stateId: string) => summary.groups.find((item) => item.class === cls && item.stateId === stateId);
    expect(group('faulted', 'broken')).toMatchObject({ count: 2, oldest: { instanceId: 'w-fault' }, causes: [{ cause: expect.stringContaining('the allow-list refused it'), count: 2 }] });
    expect(group('waitingForTimer', 'new')).toMatchObject({ count: 2 });
    expect(group('suspended', 'fulfilling')).toMatchObject({ count: 1, oldest: { instanceId: 'w-held' } });
    expect(group('stranded', 'sleeping')).toMatchObject({ count: 1 });
    // The summary reads instance rows only: children are looked at per instance, so this one counts by its state.
    expect(group('waitingForTrigger', 'fulfilling')).toMatchObject({ count: 1, triggerNames: ['ChildCompleted'] });
    expect(summary.groups.some((item) => item.class === 'final')).toBe(false);
    expect(summary.notFinal).toBe(summary.groups.reduce((sum, item) => sum + item.count, 0));
    expect((await test.api.request('GET', '/api/workflows/nothing-here/waiting')).status).toBe(404);
  });
});
