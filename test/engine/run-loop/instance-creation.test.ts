/** Creation without a lease (instance-creation.ts), on in-memory ports. */
import { ConflictError, TooLargeError } from '../../../src/engine';
import { runLoopParts } from './parts';

describe('InstanceCreation', () => {
  it('writes the interest rows before the create, and the instance with its first history entry and timer row', async () => {
    const { creation, workflow, interests, instances, dueTimers } = await runLoopParts();
    const order: string[] = [];
    const add = interests.add.bind(interests);
    interests.add = async (...args) => {
      order.push(`interests:${(await instances.get('i1')) ? 'after' : 'before'}`);
      return add(...args);
    };
    const created = await creation.create(workflow, { instanceId: 'i1', context: { owner: 'ann' } });
    expect(order).toEqual(['interests:before']);
    expect(interests.subjectsOf('i1')).toEqual(expect.arrayContaining(['owner:ann']));
    expect(created.instance.stateId).toBe('a');
    expect(created.instance.incarnation).toEqual(expect.any(String));
    expect(created.outbox.map((row) => row.kind)).toEqual(['timer']);
    const due: string[] = [];
    for await (const timer of dueTimers.listDue(new Date('2027-01-01'))) due.push(timer.instanceId);
    expect(due).toEqual(['i1']);
  });

  it('refuses an id that exists with ConflictError, and leaves the existing instance as it was', async () => {
    const { creation, workflow, instances } = await runLoopParts();
    await creation.create(workflow, { instanceId: 'i1', context: { owner: 'ann' } });
    const before = await instances.get('i1');
    await expect(creation.create(workflow, { instanceId: 'i1', context: { owner: 'bob' } })).rejects.toBeInstanceOf(ConflictError);
    expect(await instances.get('i1')).toEqual(before);
  });

  it('finishes a deletion a crash stopped (an instance marked `deleting`) before creating one with its id', async () => {
    const { creation, workflow, instances } = await runLoopParts();
    const first = await creation.create(workflow, { instanceId: 'i1', context: { owner: 'ann' } });
    await instances.save({ ...first.instance, deleting: { at: '2026-01-01T00:00:00.000Z' } }, { history: [] }, { ifMatch: first.instance.etag });
    const second = await creation.create(workflow, { instanceId: 'i1', context: { owner: 'bob' } });
    expect(second.instance.context).toEqual({ owner: 'bob' });
    expect(second.instance.incarnation).not.toBe(first.instance.incarnation);
  });

  it('removes the index rows of a creation the store refused outright (too large): the indexes hold no instance that does not exist', async () => {
    const { creation, workflow, interests, instances } = await runLoopParts({ maxInstanceBytes: 2000 });
    await expect(creation.create(workflow, { instanceId: 'i1', context: { owner: 'ann', big: 'x'.repeat(5000) } })).rejects.toBeInstanceOf(TooLargeError);
    expect(await instances.get('i1')).toBeUndefined();
    expect(interests.subjectsOf('i1')).toEqual([]);
  });
});
