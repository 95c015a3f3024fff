/**
 * @module The rows kept beside instances so they can be found: interest-index rows (which instances a
 * subject may concern) and due-timer rows (which timers fall due when, for a host that schedules from
 * storage). Both may hold more than the truth, never less: rows are added before the save that needs them
 * and removed after the save that no longer does, and a stale row costs only an answer of `notInterested`.
 */
import type { EngineLogger } from '../steps/effects';
import type { Instance } from '../model/instance';
import type { OperationOptions } from '../ports/ports';
import { newlyArmed, noLongerArmed } from '../decide/timers';
import type { InstanceRuntimePorts } from './change-types';

export class IndexRows {
  constructor(
    private readonly ports: Pick<InstanceRuntimePorts, 'interests' | 'dueTimers'>,
    private readonly options: { readonly logger: EngineLogger },
  ) {}

  /** Due-time rows for the timers `next` arms (before the save, like interest rows; never removed here). */
  async indexTimers(previous: Instance | undefined, next: Instance, options: OperationOptions): Promise<void> {
    if (!this.ports.dueTimers) return;
    const armed = newlyArmed(previous, next);
    if (armed.length) await this.ports.dueTimers.add(armed, options);
  }

  /**
   * Right after the save, the due-time rows of timers it disarmed (the entry was left, the instance ended,
   * the timer was spent), so they do not fire later as useless operations. Failing is harmless: a stale
   * row fires a timer the instance answers `notInterested`.
   */
  async unindexTimers(previous: Instance, next: Instance, options: OperationOptions): Promise<void> {
    if (!this.ports.dueTimers) return;
    const disarmed = noLongerArmed(previous, next);
    if (disarmed.length === 0) return;
    try {
      await this.ports.dueTimers.remove(disarmed, options);
    } catch (error) {
      this.options.logger.warn('Could not remove stale due-timer rows', { instanceId: next.id, error: String(error) });
    }
  }

  async removeInterests(instanceId: string, subjects: readonly string[], options: OperationOptions): Promise<void> {
    try {
      await this.ports.interests.remove(instanceId, subjects, options);
    } catch (error) {
      // Harmless: a stale row only offers a trigger the instance will answer `notInterested`.
      this.options.logger.warn('Could not remove stale interest rows', { instanceId, error: String(error) });
    }
  }
}
