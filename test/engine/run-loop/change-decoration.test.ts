/** What the loop adds to every decision before its save (change-decoration.ts): pure functions. */
import { guarded, historyOf, withAppliedRows, withLeftovers, withOperationId, withRequestActor } from '../../../src/engine/runtime';
import type { Change, HistoryEntry, Instance, OutboxRow, StoredInstance } from '../../../src/engine';

const entry = (sequence: number) => ({ sequence, triggerId: null }) as unknown as HistoryEntry;
const instance = { id: 'i1', outbox: ['own'], appliedTriggers: [] } as unknown as Instance;
const change: Change = { instance, historyEntry: entry(3), precedingEntries: [entry(1), entry(2)], outbox: [] };
const actor = { id: 'op', name: 'Operator', roles: [], via: 'key' as const };

describe('change decoration', () => {
  it('writes the entries of automatic transitions before the change’s own, and none for a change without an entry', () => {
    expect(historyOf(change).map((written) => written.sequence)).toEqual([1, 2, 3]);
    expect(historyOf({ instance, outbox: [] })).toEqual([]);
  });

  it('keeps the leftover rows it will relay listed on the instance, so a second crash forgets none', () => {
    const leftovers = [{ id: 'left' }, { id: 'own' }] as unknown as OutboxRow[];
    expect(withLeftovers(change, leftovers).instance.outbox).toEqual(['left', 'own']);
    expect(withLeftovers(change, [])).toBe(change);
  });

  it('lets go of applied records the bounded list dropped, as rows, and stamps when', () => {
    const before = { ...instance, appliedTriggers: [{ triggerId: 'a' }, { triggerId: 'b' }] } as unknown as Instance;
    const next = { ...instance, appliedTriggers: [{ triggerId: 'b' }, { triggerId: 'c' }] } as unknown as Instance;
    const now = new Date('2026-02-01T00:00:00.000Z');
    const rows = withAppliedRows(before, next, now);
    expect(rows.applied).toEqual([{ triggerId: 'a' }]);
    expect(rows.instance.appliedForgottenAt).toBe(now.toISOString());
    expect(withAppliedRows(before, { ...before }, now)).toEqual({ instance: { ...before }, applied: [] });
  });

  it('names the operation on every entry of a change that is not a trigger’s', () => {
    const decided = withOperationId({ result: { instanceId: 'i1', outcome: 'migrated' }, change, logs: [] }, { operationId: 'op1' });
    expect(historyOf(decided.change!).map((written) => written.operationId)).toEqual(['op1', 'op1', 'op1']);
    const triggered = { ...change, historyEntry: { ...entry(3), triggerId: 't1' } };
    expect(withOperationId({ result: { instanceId: 'i1', outcome: 'transitioned' }, change: triggered, logs: [] }, { operationId: 'op1' }).change).toBe(triggered);
  });

  it('gives a request from outside the actor who asked, never a trigger (it carries its own)', () => {
    expect(withRequestActor({ kind: 'cancel', sequence: 1 }, { actor })).toEqual({ kind: 'cancel', sequence: 1, actor });
    const cause = { kind: 'trigger' as const, trigger: { id: 't1', name: 'Go', subjects: [] } };
    expect(withRequestActor(cause, { actor })).toBe(cause);
  });

  it('answers for the instance when a guard does, and decides otherwise', () => {
    const stored = instance as StoredInstance;
    expect(guarded(stored, () => ({ instanceId: 'i1', outcome: 'skipped' }))).toEqual({ result: { instanceId: 'i1', outcome: 'skipped' }, logs: [] });
    expect(guarded(stored, () => undefined)).toBeUndefined();
    expect(guarded(stored, undefined)).toBeUndefined();
  });
});
