/**
 * The idempotency check across the change to internal trigger kinds (decision 0025): an operation recorded
 * before, whose trigger carries an old optional kind field (a timer's trigger, say), is the same trigger as
 * the one made now with `internal`; a real difference is still refused, naming where.
 */
import { ConflictError, type Trigger } from '../../src/engine/model';
import type { Operation } from '../../src/engine/operations';
import { assertSameTrigger, triggerFingerprint } from '../../src/host/trigger-fingerprint';

const current: Trigger = { id: 'timer:c1:0:escalate', name: 'timer', subjects: ['c1'], internal: { kind: 'timer', transitionId: 'escalate', stateEntry: 0 } };
const recordedBefore = (trigger: object): Operation => ({ id: current.id, triggerId: current.id, trigger, triggerFingerprint: 'written-by-older-code' }) as unknown as Operation;

describe('trigger fingerprints and internal kinds', () => {
  it('takes an old record of the same timer trigger as a repeat', () => {
    const old = { id: current.id, name: 'timer', subjects: ['c1'], timer: { transitionId: 'escalate', stateEntry: 0 } };
    expect(() => assertSameTrigger(recordedBefore(old), current, triggerFingerprint(current))).not.toThrow();
    // Either form fingerprints the same, so a record written now matches an old trigger delivered again.
    expect(triggerFingerprint(old as unknown as Trigger)).toBe(triggerFingerprint(current));
  });

  it('refuses an old record of another timer under the same id, naming the difference', () => {
    const other = { id: current.id, name: 'timer', subjects: ['c1'], timer: { transitionId: 'remind', stateEntry: 0 } };
    expect(() => assertSameTrigger(recordedBefore(other), current, triggerFingerprint(current))).toThrow(ConflictError);
    expect(() => assertSameTrigger(recordedBefore(other), current, triggerFingerprint(current))).toThrow(/internal\.transitionId/);
  });
});
