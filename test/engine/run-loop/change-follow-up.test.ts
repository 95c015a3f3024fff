/** What settles a delivery (change-follow-up.ts): log lines, the fault log, the journal's effects, the memory of relayed outboxes. */
import { ChangeFollowUp } from '../../../src/engine/runtime';
import type { Instance, StoredInstance } from '../../../src/engine';
import { FakeClock, recordingLogger } from '../support';

function followUp(send: () => Promise<never> = () => Promise.reject(new Error('no HTTP'))) {
  const logger = recordingLogger();
  const clock = new FakeClock();
  return { logger, clock, followUp: new ChangeFollowUp({ clock, logger, http: { send } }) };
}

const instance = { id: 'i1', workflowId: 'w', workflowVersion: 1, stateId: 'a', status: 'waiting', etag: 'e1' } as unknown as StoredInstance;

describe('ChangeFollowUp', () => {
  it('emits a delivery’s log lines at their level', () => {
    const { followUp: settle, logger } = followUp();
    settle.finish('i1|t1', [
      { level: 'info', message: 'one', properties: { a: 1 } },
      { level: 'warn', message: 'two', properties: {} },
    ]);
    expect(logger.lines).toEqual([
      { level: 'info', message: 'one', properties: { a: 1 } },
      { level: 'warn', message: 'two', properties: {} },
    ]);
  });

  it('logs a fault at error once: when the save recorded it, not again for an instance already faulted so', () => {
    const { followUp: settle, logger } = followUp();
    const fault = { at: '2026-01-01T00:00:00.000Z', message: 'boom', triggerId: 't1' };
    const faulted = { ...instance, status: 'faulted', fault } as unknown as Instance;
    settle.finish('i1|t1', [], faulted, instance);
    settle.finish('i1|t2', [], faulted, faulted);
    expect(logger.lines.filter((line) => line.level === 'error')).toEqual([
      { level: 'error', message: 'An instance faulted', properties: { instanceId: 'i1', workflowId: 'w', workflowVersion: 1, stateId: 'a', triggerId: 't1', reason: 'boom' } },
    ]);
  });

  it('gives a decision the engine clock and an abort signal when one is given', () => {
    const { followUp: settle, clock } = followUp();
    const signal = new AbortController().signal;
    const effects = settle.effects('i1|t1', signal);
    clock.advance(5000);
    expect(effects.now()).toEqual(clock.now());
    expect(effects.signal).toBe(signal);
    expect(settle.effects('i1|t1').signal).toBeUndefined();
  });

  it('remembers an instance relayed completely only at the ETag it had, and forgets a deleted one', () => {
    const { followUp: settle } = followUp();
    expect(settle.relayedAt(instance)).toBe(false);
    settle.relayedAll({ instance, outbox: [] });
    expect(settle.relayedAt(instance)).toBe(true);
    expect(settle.relayedAt({ ...instance, etag: 'e2' })).toBe(false);
    settle.relayedAll({ outbox: [] }); // no instance: nothing to remember
    settle.forget('i1');
    expect(settle.relayedAt(instance)).toBe(false);
  });
});
