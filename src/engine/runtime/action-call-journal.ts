/**
 * @module The journal of external action calls, so that an `invokeExternalService` action runs once per
 * delivery. A decision re-made after a 412 (another writer saved first) or after a lost lease (the same
 * delivery retried in this process) replays the response recorded for that step instead of POSTing again.
 * Entries are keyed by delivery (instance and cause) and step, and dropped once the delivery's change is
 * saved or needs no save. Bounded: the oldest deliveries are forgotten first. A crash of the process
 * loses the journal, so across processes an action may be called again (at least once, as documented in
 * docs/architecture.md, "What deciding guarantees").
 */
import { BoundedMap } from '../model/bounded-map';
import type { ExternalRequest, ExternalResponse, ExternalServiceClient } from '../steps/outbound-port';

export class ActionCallJournal {
  private readonly deliveries: BoundedMap<string, Map<string, ExternalResponse[]>>;

  constructor(capacity = 10_000) {
    this.deliveries = new BoundedMap(capacity);
  }

  /** The client an action step at `location` uses during delivery `deliveryKey`. */
  client(deliveryKey: string, location: string, http: ExternalServiceClient): ExternalServiceClient {
    let calls = 0;
    return {
      send: async (request: ExternalRequest): Promise<ExternalResponse> => {
        const index = calls++;
        const recorded = this.deliveries.get(deliveryKey)?.get(location)?.[index];
        if (recorded) return recorded;
        const response = await http.send(request);
        this.record(deliveryKey, location, index, response);
        return response;
      },
    };
  }

  /** The delivery's change is saved (or there was none): its calls are done with. */
  forget(deliveryKey: string): void {
    this.deliveries.delete(deliveryKey);
  }

  get size(): number {
    return this.deliveries.size;
  }

  private record(deliveryKey: string, location: string, index: number, response: ExternalResponse): void {
    let steps = this.deliveries.get(deliveryKey);
    if (!steps) {
      this.deliveries.set(deliveryKey, (steps = new Map()));
    }
    let responses = steps.get(location);
    if (!responses) steps.set(location, (responses = []));
    responses[index] = response;
  }
}
