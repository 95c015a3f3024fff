/** The operator's changes through the loop (operator-changes.ts), on in-memory ports. */
import { ConflictError } from '../../../src/engine';
import { runLoopParts } from './parts';

async function withInstance() {
  const parts = await runLoopParts();
  await parts.creation.create(parts.workflow, { instanceId: 'i1', context: { owner: 'ann' } });
  return parts;
}

describe('OperatorChanges', () => {
  it('suspends and resumes, each one history entry naming who asked', async () => {
    const { operatorChanges, instances, history } = await withInstance();
    const actor = { id: 'op', name: 'Operator', roles: [], via: 'key' as const };
    expect((await operatorChanges.suspend('i1', { actor })).instance?.status).toBe('suspended');
    expect((await operatorChanges.resume('i1', { actor })).instance?.status).toBe('waiting');
    const entries: { actor?: { id: string } }[] = [];
    for await (const entry of history.list('i1')) entries.push(entry);
    expect(entries.slice(-2).map((entry) => entry.actor?.id)).toEqual(['op', 'op']);
    expect((await instances.get('i1'))?.status).toBe('waiting');
  });

  it('lets a guard answer instead of deciding, saving nothing', async () => {
    const { operatorChanges, instances } = await withInstance();
    const before = await instances.get('i1');
    const decided = await operatorChanges.cancel('i1', {}, () => ({ instanceId: 'i1', outcome: 'skipped' }));
    expect(decided.decision?.result.outcome).toBe('skipped');
    expect(await instances.get('i1')).toEqual(before);
  });

  it('cancels once: a second cancellation is refused with ConflictError', async () => {
    const { operatorChanges } = await withInstance();
    expect((await operatorChanges.cancel('i1')).instance?.status).toBe('cancelled');
    await expect(operatorChanges.cancel('i1')).rejects.toBeInstanceOf(ConflictError);
  });

  it('dry-runs a trigger on the instance as it is: the decision, nothing saved; undefined for no instance', async () => {
    const { operatorChanges, instances } = await withInstance();
    const before = await instances.get('i1');
    const result = await operatorChanges.dryRun('i1', { id: 'd1', name: 'Go', subjects: ['i1'] });
    expect(result?.outcome).toBe('transitioned');
    expect(await instances.get('i1')).toEqual(before);
    expect(await operatorChanges.dryRun('nobody', { id: 'd2', name: 'Go', subjects: [] })).toBeUndefined();
  });

  it('has no capacity forecast without capacity rows', async () => {
    const { operatorChanges } = await withInstance();
    expect(operatorChanges.capacityForecast()).toBeUndefined();
  });
});
