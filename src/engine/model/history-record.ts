/**
 * @module What a history entry records of the change it stands for, so the instance can be rebuilt as it
 * was after any entry and a later replay can offer the same trigger again and reuse the same answers
 * (docs/decisions/0026-replayable-history.md): the trigger as it came in, the conditions evaluated (the
 * trace), the context's change as an RFC 6902 patch and the answers of external calls made while deciding.
 * Everything is bounded so an entry fits its table row; what was cut is said, never silently dropped.
 */
import { redactSecrets } from './redaction';
import type { Actor } from './actor';
import { jsonSizeInBytes, type JsonObject, type JsonValue } from './json';
import { diffJson, type JsonPatch } from './json-patch';
import type { Trigger } from './trigger';

/** `full`: everything below; `summary`: the trigger's name, id and subjects and the context change only (no parameters, trace or answers). */
export type HistoryDetail = 'full' | 'summary';

/** At most this many conditions of a trace are recorded (the rest are counted in `traceOmitted`). */
export const MAX_RECORDED_TRACE_ENTRIES = 50;
/** At most this many external calls are recorded per entry (the rest are counted in `callsOmitted`). */
export const MAX_RECORDED_CALLS = 20;
/** An answer's body larger than this (UTF-8 JSON) is summarised instead of recorded. */
export const MAX_RECORDED_ANSWER_BYTES = 4096;
/** The whole record's limit: past it, answers go first, then the trace, then the context change (each said so). */
export const MAX_HISTORY_RECORD_BYTES = 256 * 1024;

export interface RecordedTrigger {
  readonly id: string;
  readonly name: string;
  readonly subjects: readonly string[];
  readonly contentType?: string;
  /** Absent with `detail: summary`. */
  readonly parameters?: JsonObject;
  readonly actor?: Actor;
}

/** One condition evaluated (the decision trace's entry, decide/decision-trace.ts). */
export interface RecordedCondition {
  readonly path: string;
  readonly type: string;
  readonly result: true | false | 'error' | 'skipped';
  readonly detail?: string;
}

/** An external call made while deciding and what it answered, in the order made. */
export interface RecordedCall {
  /** `condition` (a read, `effects.http`) or the action step's location (journaled, `effects.actionHttp`). */
  readonly by: string;
  readonly method: 'GET' | 'POST';
  /** Secrets in it redacted. */
  readonly url: string;
  /** Absent when the call failed before an answer (see `error`). */
  readonly status?: number;
  /** The answer's body, when it was at most MAX_RECORDED_ANSWER_BYTES. */
  readonly body?: JsonValue;
  /** Instead of `body` when it was larger: its size, so a replay knows the answer was not kept. */
  readonly bodySummary?: { readonly bytes: number; readonly omitted: true };
  readonly error?: string;
}

export interface HistoryRecord {
  readonly detail: HistoryDetail;
  /**
   * Only on an entry of an automatic transition ahead of its change's last entry: that entry's sequence,
   * whose record holds the whole change (the context between the steps of one change is not kept).
   */
  readonly partOfChange?: number;
  /** The trigger that made the change (absent for a creation, recovery, migration, ...). */
  readonly trigger?: RecordedTrigger;
  readonly trace?: readonly RecordedCondition[];
  /** Conditions evaluated but not recorded (past MAX_RECORDED_TRACE_ENTRIES or the record's size). */
  readonly traceOmitted?: number;
  /** The context before the change → after it (RFC 6902). Absent only when it was too large to keep (`contextChangeOmitted`). */
  readonly contextChange?: JsonPatch;
  /** The patch's size when it was too large to record: the context cannot be rebuilt past this entry. */
  readonly contextChangeOmitted?: { readonly bytes: number };
  readonly calls?: readonly RecordedCall[];
  readonly callsOmitted?: number;
}

export interface RecordInput {
  readonly detail: HistoryDetail;
  readonly trigger?: Trigger;
  readonly contextBefore: JsonObject;
  readonly contextAfter: JsonObject;
  readonly trace?: readonly RecordedCondition[];
  readonly calls?: readonly RecordedCall[];
}

/** The answer's body as recorded: itself when small, else its size. */
export function boundedAnswer(body: unknown): Pick<RecordedCall, 'body' | 'bodySummary'> {
  if (body === undefined) return {};
  const bytes = jsonSizeInBytes(body);
  return bytes <= MAX_RECORDED_ANSWER_BYTES ? { body: body as JsonValue } : { bodySummary: { bytes, omitted: true } };
}

function recordedTrigger(trigger: Trigger, detail: HistoryDetail): RecordedTrigger {
  return {
    id: trigger.id,
    name: trigger.name,
    subjects: trigger.subjects,
    ...(trigger.contentType ? { contentType: trigger.contentType } : {}),
    ...(detail === 'full' && trigger.parameters ? { parameters: trigger.parameters } : {}),
    ...(trigger.actor ? { actor: trigger.actor } : {}),
  };
}

/** The record of one change, bounded (see the limits above). */
export function historyRecordOf(input: RecordInput): HistoryRecord {
  const contextChange = diffJson(input.contextBefore, input.contextAfter);
  const full = input.detail === 'full';
  const trace = full ? (input.trace ?? []) : [];
  const calls = full ? (input.calls ?? []) : [];
  let record: HistoryRecord = {
    detail: input.detail,
    ...(input.trigger ? { trigger: recordedTrigger(input.trigger, input.detail) } : {}),
    ...(trace.length ? { trace: trace.slice(0, MAX_RECORDED_TRACE_ENTRIES) } : {}),
    ...(trace.length > MAX_RECORDED_TRACE_ENTRIES ? { traceOmitted: trace.length - MAX_RECORDED_TRACE_ENTRIES } : {}),
    contextChange,
    ...(calls.length ? { calls: calls.slice(0, MAX_RECORDED_CALLS).map((call) => redactSecrets(call)) } : {}),
    ...(calls.length > MAX_RECORDED_CALLS ? { callsOmitted: calls.length - MAX_RECORDED_CALLS } : {}),
  };
  // Too large: drop what a rebuild needs least first.
  if (jsonSizeInBytes(record) > MAX_HISTORY_RECORD_BYTES && record.calls) {
    const { calls: dropped, ...rest } = record;
    record = { ...rest, callsOmitted: dropped.length + (record.callsOmitted ?? 0) };
  }
  if (jsonSizeInBytes(record) > MAX_HISTORY_RECORD_BYTES && record.trace) {
    const { trace: dropped, ...rest } = record;
    record = { ...rest, traceOmitted: dropped.length + (record.traceOmitted ?? 0) };
  }
  if (jsonSizeInBytes(record) > MAX_HISTORY_RECORD_BYTES) {
    const { contextChange: dropped, ...rest } = record;
    record = { ...rest, contextChangeOmitted: { bytes: jsonSizeInBytes(dropped) } };
  }
  return record;
}
