/**
 * @module Triggers parked outside the local runner's workers while they wait for a `flow.concurrency`
 * slot. A worker that waited in place for a busy key's slot (polling its row, holding the instance's lease)
 * or slept between retries was a worker no other key could use: one key sending 100 times the others' load
 * took every worker and the light keys starved. A trigger without a slot is now handed back at once
 * (the engine's queued verdict, decision 0025, which the durable host schedules with a timer); the runner gives its worker back and parks it here, in a line per key
 * (higher priority first, then arrival). Only the head of a line tries again: when this process releases a
 * slot of that key, when the trigger ahead of it got its slot, or after `retryIntervalInMs` (a slot freed by
 * another process or by expiry is not announced here). A parked trigger is never dropped: it stays parked
 * until it is applied or the runner stops (its operation then stays `running`, resumed by the next start).
 * Listed triggers keep the order of the key's queue in storage (their place comes with the refusal): a front
 * here that storage ranks behind a trigger parked further back here would be refused at every try, and that
 * one never tried (after a restart the key stood still, nothing running, until the listings expired).
 */
import { delay } from '../../leasing/backoff';
import { FlowQueuedError, placeGoesBefore, type QueuePlace } from '../../engine/model';
import type { AppliedOutcome } from '../../engine/operations';
import { isQueuedForSlot, type ApplyOperationAnswer } from '../contracts/operation-activities';

/** How long the head of a line waits without a release seen here before it tries again. @default */
export const DEFAULT_PARKED_RETRY_INTERVAL_IN_MS = 1000;

export interface SlotQueue {
  readonly workflowId: string;
  readonly key: string;
}

interface Ticket {
  readonly line: string;
  readonly priority: number;
  readonly arrival: number;
  /** Listed in the key's queue in storage (handed back by it), rather than parked on a key hint alone. */
  readonly listed: boolean;
  /** Its place in the key's queue in storage, when the refusal named it. */
  readonly place?: QueuePlace;
  /** Set when its turn came while it was not waiting for one (a release, or the trigger ahead left). */
  ready: boolean;
  /** Between a turn and its next call of turn(): being applied, so the next in line is the front. */
  trying: boolean;
  wake?: () => void;
}

/** A parked trigger's place in its key's line. */
export interface ParkedTrigger {
  /** Resolves when it should try again; rejects once the runner stops. */
  turn(): Promise<void>;
  /** Leaves the line (applied, or failed for another reason): the next in line tries at once. */
  leave(): void;
}

export interface SlotParkingOptions {
  /** @default DEFAULT_PARKED_RETRY_INTERVAL_IN_MS */
  readonly retryIntervalInMs?: number;
  /** Aborted when the runner stops: every parked trigger's turn rejects. */
  readonly signal: AbortSignal;
  /** The wait of a line's head between tries (tests pass one they end by hand). @default delay */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export class SlotParking {
  private readonly lines = new Map<string, Ticket[]>();
  private arrivals = 0;
  private readonly retryIntervalInMs: number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly options: SlotParkingOptions) {
    this.retryIntervalInMs = options.retryIntervalInMs ?? DEFAULT_PARKED_RETRY_INTERVAL_IN_MS;
    this.sleep = options.sleep ?? delay;
    options.signal.addEventListener('abort', () => {
      for (const line of this.lines.values()) for (const ticket of line) ticket.wake?.();
    });
  }

  /** Triggers parked now, across every key. */
  get parked(): number {
    let count = 0;
    for (const line of this.lines.values()) count += line.length;
    return count;
  }

  /**
   * A place in the line of the queue's key: after every trigger of at least its priority, except that a
   * trigger `listed` in the key's queue in storage goes before those of its priority parked on a key hint
   * alone (not listed there yet). The line then keeps the storage queue's order, which is the order the
   * slots are given in: an unlisted trigger at the front would be turned away while a listed one waits
   * behind it, the key's slot idle meanwhile (a heavy key's throughput fell to a tenth under overload).
   */
  join(queue: SlotQueue, priority: number, listed = true, place?: QueuePlace): ParkedTrigger {
    const name = lineOf(queue);
    let line = this.lines.get(name);
    if (!line) this.lines.set(name, (line = []));
    const ticket: Ticket = { line: name, priority, arrival: this.arrivals++, listed, ready: false, trying: false, ...(place ? { place } : {}) };
    // Among listed triggers, the storage queue's own order (a trigger resumed after a restart finds its old
    // listing there, and may be ahead of those parked here before it): the front here is then the first there.
    let index = line.findIndex(
      (other) =>
        other.priority < priority ||
        (other.priority === priority && listed && !other.trying && (!other.listed || (place !== undefined && (other.place === undefined || placeGoesBefore(place, other.place))))),
    );
    if (index < 0) index = line.length;
    line.splice(index, 0, ticket);
    return { turn: () => this.turn(ticket), leave: () => this.leave(ticket) };
  }

  /** Whether triggers are parked for the queue's key now (its line here is not empty). */
  has(queue: SlotQueue): boolean {
    return this.lines.has(lineOf(queue));
  }

  /** A slot of the queue's key was released in this process: the head of its line tries again. */
  released(queue: SlotQueue): void {
    // The front, not a trigger being applied: the one that got the slot released it (its follow-up work and
    // completion still to come), and the next one's load then overlaps them.
    const front = frontOf(this.lines.get(lineOf(queue)));
    if (front) this.nudge(front);
  }

  private async turn(ticket: Ticket): Promise<void> {
    ticket.trying = false;
    for (;;) {
      this.options.signal.throwIfAborted();
      const atHead = frontOf(this.lines.get(ticket.line)) === ticket;
      if (atHead && ticket.ready) {
        ticket.ready = false;
        ticket.trying = true;
        return;
      }
      const woken = new Promise<'woken'>((resolve) => (ticket.wake = () => resolve('woken')));
      if (!atHead) {
        await woken;
        continue;
      }
      // The head also tries on its own now and then: a release by another process is not announced here.
      const timer = new AbortController();
      const stop = () => timer.abort();
      this.options.signal.addEventListener('abort', stop, { once: true });
      try {
        const how = await Promise.race([woken, this.sleep(this.retryIntervalInMs, timer.signal).then(() => 'slept' as const)]);
        if (how === 'slept') return;
      } catch (error) {
        // The sleep ends by abort only when the runner stops (the loop's first line says so).
        if (!timer.signal.aborted) throw error;
      } finally {
        this.options.signal.removeEventListener('abort', stop);
        timer.abort();
        ticket.wake = undefined;
      }
    }
  }

  private leave(ticket: Ticket): void {
    const line = this.lines.get(ticket.line);
    if (!line) return;
    const index = line.indexOf(ticket);
    if (index < 0) return;
    line.splice(index, 1);
    if (line.length === 0) this.lines.delete(ticket.line);
    // The front tries when the one ahead of it leaves (it got its slot, or failed), unless one is being applied: a release wakes it then.
    else {
      const front = frontOf(line);
      if (front && !line.some((other) => other.trying) && index <= line.indexOf(front)) this.nudge(front);
    }
  }

  private nudge(ticket: Ticket): void {
    ticket.ready = true;
    ticket.wake?.();
  }
}

/** The first of a line not being applied: the one whose turn is next. */
function frontOf(line: readonly Ticket[] | undefined): Ticket | undefined {
  return line?.find((ticket) => !ticket.trying);
}

/** The name of a key's line (a workflow's keys are its own). */
export function lineOf(queue: SlotQueue): string {
  return JSON.stringify([queue.workflowId, queue.key]);
}

/** The concurrency queue a trigger handed back without a slot waits in, if that is what failed. */
export function parkingQueueOf(error: unknown): SlotQueue | undefined {
  return error instanceof FlowQueuedError ? error.queue : undefined;
}

/** The place in that queue the refusal named, if any. */
export function placeOf(error: unknown): QueuePlace | undefined {
  return error instanceof FlowQueuedError ? error.place : undefined;
}

/**
 * The applied outcome, or, for an answer queued for a slot, the verdict thrown in-process (FlowQueuedError), which
 * the runner parks on: the same verdict the durable orchestrator waits on with a timer (decision 0025).
 */
export function appliedOrParked(answer: ApplyOperationAnswer): AppliedOutcome {
  if (isQueuedForSlot(answer)) throw FlowQueuedError.of(answer.queued);
  return answer;
}
