/**
 * Human tasks in the engine (issue 39, part 2), on in-memory ports and the manual clock: opened on entering
 * the state and closed on leaving it, whatever moved it; claims that race; four-eyes; outcome forms;
 * quorum; the escalation ladder as armed timers; task events.
 */
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../../src/engine';
import { ann, bob, claire, mia, person, taskEngine } from '../../support/human-tasks';

const HOUR = 3600_000;

async function historyOf(engine: Awaited<ReturnType<typeof taskEngine>>['engine'], instanceId: string) {
  return (await engine.getHistory(instanceId, { maxPageSize: 1000 })).items;
}

describe('human tasks in the engine', () => {
  it('opens the task when the instance enters the state, on the instance, with its timers and inbox rows', async () => {
    const { engine, create, index } = await taskEngine();
    const created = await create('e1');
    expect(created.task).toMatchObject({
      id: `e1~0`,
      stateId: 'review',
      title: 'Approve 120 for claire',
      assignees: { users: [], groups: ['approvers'], roles: [] },
      // 16 working hours from Monday 09:00 in London: Tuesday 17:00.
      dueAt: '2026-12-01T17:00:00.000Z',
      decisions: [],
    });
    expect(created.timers).toEqual([
      { transitionId: '~task.0', dueAt: '2026-12-01T17:00:00.000Z' },
      { transitionId: '~task.1', dueAt: '2026-12-02T17:00:00.000Z' },
      { transitionId: '~task.2', dueAt: '2026-12-04T17:00:00.000Z' },
    ]);
    expect(index.all().map((row) => row.key)).toEqual(['group:approvers']);
    const inbox = await engine.tasks.inbox(ann, {});
    expect(inbox.items.map((row) => row.taskId)).toEqual(['e1~0']);
    expect((await engine.tasks.inbox(claire, {})).items).toEqual([]);
    const types = (await engine.listEvents('e1')).items.map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['taskCreated', 'taskAssigned']));
  });

  it('lets exactly one of two racing claims win; the other gets a ConflictError; a stranger is forbidden', async () => {
    const { engine, create } = await taskEngine();
    await create('e1');
    const results = await Promise.allSettled([engine.tasks.claim('e1~0', ann), engine.tasks.claim('e1~0', bob)]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ConflictError);
    expect(String(refused.reason.message)).toMatch(/is claimed by/);
    await expect(engine.tasks.claim('e1~0', claire)).rejects.toBeInstanceOf(ForbiddenError);
    const winner = (await engine.getInstance('e1')).task!.claimedBy!.id;
    const loser = winner === 'ann' ? bob : ann;
    await expect(engine.tasks.complete('e1~0', loser, { outcome: 'Approve' })).rejects.toBeInstanceOf(ConflictError);
    await expect(engine.tasks.release('e1~0', loser)).rejects.toBeInstanceOf(ForbiddenError);
    const released = await engine.tasks.release('e1~0', winner === 'ann' ? ann : bob);
    expect(released.claimedBy).toBeUndefined();
    expect((await engine.listEvents('e1')).items.filter((event) => event.type === 'taskClaimed')).toHaveLength(1);
  });

  it('refuses the claimant (four eyes) with a ForbiddenError and a form that does not match, naming the field', async () => {
    const { engine, create } = await taskEngine();
    await create('e1', 'ann');
    await expect(engine.tasks.complete('e1~0', ann, { outcome: 'Approve' })).rejects.toThrow(ForbiddenError);
    await expect(engine.tasks.complete('e1~0', ann, { outcome: 'Approve' })).rejects.toThrow(/Four eyes/);
    const invalid = await engine.tasks.complete('e1~0', bob, { outcome: 'Reject', parameters: { reason: 'no' } }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).issues.map((issue) => issue.path)).toEqual(['parameters.reason']);
    const unknown = await engine.tasks.complete('e1~0', bob, { outcome: 'Maybe' }).catch((error: unknown) => error);
    expect((unknown as ValidationError).issues.map((issue) => issue.path)).toEqual(['outcome']);
  });

  it('completes: records the decision in the history, sends the outcome trigger as the person, closes the task', async () => {
    const { engine, create, index } = await taskEngine();
    await create('e1');
    const decided = await engine.tasks.complete('e1~0', bob, { outcome: 'Reject', parameters: { reason: 'receipts missing' }, comment: 'send receipts' });
    expect(decided).toMatchObject({ status: 'decided', resolution: { outcome: 'Reject', by: { id: 'bob' }, reason: 'quorum' } });
    const instance = await engine.getInstance('e1');
    expect(instance).toMatchObject({ stateId: 'rejected', status: 'complete' });
    expect(instance.task).toBeUndefined();
    expect(instance.timers).toEqual([]);
    const history = await historyOf(engine, 'e1');
    expect(history.find((entry) => entry.event === 'task')).toMatchObject({
      task: { taskId: 'e1~0', action: 'decided', decision: { by: { id: 'bob' }, outcome: 'Reject', comment: 'send receipts' } },
    });
    expect(history.at(-1)).toMatchObject({ event: 'transitioned', transitionId: 'reject', actor: { id: 'bob' } });
    expect(index.all()).toEqual([]);
    const types = (await engine.listEvents('e1')).items.map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['taskCompleted', 'taskClosed']));
    await expect(engine.tasks.complete('e1~0', ann, { outcome: 'Approve' })).rejects.toThrow(/is closed/);
    await expect(engine.tasks.get('e1~0')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('closes the task whatever moves the instance: another trigger, a cancel', async () => {
    const { engine, create, index } = await taskEngine();
    await create('e1');
    await create('e2');
    await engine.applyTrigger('e1', { id: 'w1', name: 'Withdraw', subjects: ['e1'] });
    await engine.cancel('e2');
    for (const id of ['e1', 'e2']) {
      const instance = await engine.getInstance(id);
      expect(instance.task).toBeUndefined();
      expect(instance.timers ?? []).toEqual([]);
    }
    expect(index.all()).toEqual([]);
  });

  it('waits for the quorum: `all` of two users needs both; a split makes it unreachable', async () => {
    const { engine, create } = await taskEngine({ assignees: { users: ['ann', 'bob'] }, quorum: 'all', unreachableOutcome: 'Reject', fourEyes: undefined });
    await create('e1');
    const first = await engine.tasks.complete('e1~0', ann, { outcome: 'Approve' });
    expect(first).toMatchObject({ status: 'open', decisions: [{ by: { id: 'ann' }, outcome: 'Approve' }] });
    await expect(engine.tasks.complete('e1~0', ann, { outcome: 'Approve' })).rejects.toThrow(/decided task/);
    await engine.tasks.complete('e1~0', bob, { outcome: 'Approve' });
    expect((await engine.getInstance('e1')).stateId).toBe('approved');
    await create('e2');
    await engine.tasks.complete('e2~0', ann, { outcome: 'Approve' });
    await engine.tasks.complete('e2~0', bob, { outcome: 'Reject', parameters: { reason: 'too much' } });
    expect((await engine.getInstance('e2')).stateId).toBe('rejected');
  });

  it('climbs the escalation ladder in working time: remind, escalate to managers, then decides Reject as the system', async () => {
    const { engine, create, clock } = await taskEngine();
    await create('e1');
    await clock.advanceTo('2026-12-01T17:00:00.000Z');
    expect((await historyOf(engine, 'e1')).filter((entry) => entry.event === 'task').map((entry) => entry.task!.action)).toEqual(['reminded']);
    expect((await engine.tasks.inbox(mia, {})).items).toEqual([]);
    await clock.advanceTo('2026-12-02T17:00:00.000Z');
    expect((await engine.getInstance('e1')).task).toMatchObject({ escalated: true, assignees: { groups: ['approvers'], roles: ['manager'] } });
    expect((await engine.tasks.inbox(mia, { escalated: true })).items.map((row) => row.taskId)).toEqual(['e1~0']);
    expect((await engine.tasks.inbox(mia, { overdue: true })).items.map((row) => row.taskId)).toEqual(['e1~0']);
    await clock.advanceBy(HOUR); // Wednesday 18:00: nothing more is due until Friday 17:00 (40 working hours)
    expect((await engine.getInstance('e1')).stateId).toBe('review');
    await clock.advanceTo('2026-12-04T17:00:00.000Z');
    const instance = await engine.getInstance('e1');
    expect(instance.stateId).toBe('rejected');
    expect((await historyOf(engine, 'e1')).at(-1)).toMatchObject({ transitionId: 'reject', actor: { id: 'system' } });
    const types = (await engine.listEvents('e1')).items.map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['taskReminded', 'taskEscalated', 'taskCompleted', 'taskClosed']));
  });

  it('delegates to a user: claimed for them and in their inbox', async () => {
    const { engine, create } = await taskEngine();
    await create('e1');
    const dan = person('dan');
    const delegated = await engine.tasks.delegate('e1~0', ann, { id: 'dan', name: 'Dan' });
    expect(delegated).toMatchObject({ status: 'claimed', claimedBy: { id: 'dan' }, delegatedBy: { id: 'ann' } });
    expect((await engine.tasks.inbox(dan, {})).items.map((row) => row.taskId)).toEqual(['e1~0']);
    await engine.tasks.complete('e1~0', dan, { outcome: 'Approve' });
    expect((await engine.getInstance('e1')).stateId).toBe('approved');
  });
});
