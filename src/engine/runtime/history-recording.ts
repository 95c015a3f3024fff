/**
 * @module What the run loop records on a change's history entries (model/history-record.ts): the calls its
 * decision made through `effects` (each answer bounded), and, once decided, the record on the change's last
 * entry (its automatic transitions' entries point at it). Per decision made: a decision re-made after a 412
 * starts a new recorder, so the record is that of the decision saved.
 */
import type { Cause, Decision } from '../decide/decision';
import { historyDetailOf } from '../definition/history-policy';
import type { WorkflowDefinition } from '../definition/definition';
import { boundedAnswer, historyRecordOf, type RecordedCall } from '../model/history-record';
import type { JsonObject } from '../model/json';
import type { Effects } from '../steps/effects';
import type { ExternalRequest, ExternalResponse, ExternalServiceClient } from '../steps/outbound-port';

/** The calls one decision made, in order, with their answers. */
export class CallRecorder {
  private readonly recorded: RecordedCall[] = [];

  get calls(): readonly RecordedCall[] {
    return this.recorded;
  }

  /** `effects` whose condition and action calls are recorded here as they answer (or fail). */
  effects(effects: Effects): Effects {
    const actionHttp = effects.actionHttp;
    return {
      ...effects,
      http: this.client(effects.http, 'condition'),
      ...(actionHttp ? { actionHttp: (location: string) => this.client(actionHttp(location), location) } : {}),
    };
  }

  private client(inner: ExternalServiceClient, by: string): ExternalServiceClient {
    return {
      ...(inner.refusal ? { refusal: (url: string) => inner.refusal!(url) } : {}),
      send: async (request: ExternalRequest): Promise<ExternalResponse> => {
        try {
          const response = await inner.send(request);
          this.recorded.push({ by, method: request.method, url: request.url, status: response.status, ...boundedAnswer(response.body) });
          return response;
        } catch (error) {
          this.recorded.push({ by, method: request.method, url: request.url, error: error instanceof Error ? error.message : String(error) });
          throw error;
        }
      },
    };
  }
}

/**
 * The decision with its change's record on its last history entry (`contextBefore` → the change's context),
 * and its automatic transitions' entries naming that entry. A change without an entry is left as it is.
 */
export function withHistoryRecord(decision: Decision, definition: WorkflowDefinition, cause: Cause, contextBefore: JsonObject, calls: readonly RecordedCall[]): Decision {
  const change = decision.change;
  const entry = change?.historyEntry;
  if (!change || !entry) return decision;
  const detail = historyDetailOf(definition);
  const record = historyRecordOf({
    detail,
    ...(cause.kind === 'trigger' ? { trigger: cause.trigger } : {}),
    contextBefore,
    contextAfter: change.instance.context,
    ...(decision.result.trace ? { trace: decision.result.trace } : {}),
    calls,
  });
  const preceding = change.precedingEntries?.map((earlier) => ({ ...earlier, record: { detail, partOfChange: entry.sequence } }));
  return { ...decision, change: { ...change, historyEntry: { ...entry, record }, ...(preceding ? { precedingEntries: preceding } : {}) } };
}
