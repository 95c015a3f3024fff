/**
 * @module TriggerDispatcher in memory: records dispatched triggers, idempotent by trigger id (the same id
 * maps to the same operation), optionally handing each new trigger to a callback.
 */
import type { OperationOptions, TriggerDispatcher } from '../ports';
import type { Trigger } from '../trigger';

export class InMemoryTriggerDispatcher implements TriggerDispatcher {
  /** Distinct triggers, in the order first dispatched. */
  readonly dispatched: Trigger[] = [];
  /** Every call, repeats included. */
  calls = 0;
  /** Set to make the next dispatch calls fail (tests of the outbox). */
  failWith?: Error;
  private readonly operations = new Map<string, string>();

  constructor(private readonly onTrigger?: (trigger: Trigger) => void | Promise<void>) {}

  async dispatch(trigger: Trigger, _options?: OperationOptions): Promise<{ operationId: string }> {
    this.calls++;
    if (this.failWith) throw this.failWith;
    const existing = this.operations.get(trigger.id);
    if (existing) return { operationId: existing };
    const operationId = `op-${trigger.id}`;
    this.operations.set(trigger.id, operationId);
    this.dispatched.push(structuredClone(trigger) as Trigger);
    await this.onTrigger?.(trigger);
    return { operationId };
  }
}
