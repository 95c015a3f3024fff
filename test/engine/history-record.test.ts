/**
 * History records (history-record.ts) and time travel from them (history-rebuild.ts): a record keeps the
 * trigger, the trace, the context's change and the answers of calls, each bounded and saying what it cut;
 * `summary` keeps the trigger's name and the change only; the instance after entry N is rebuilt from the
 * patches alone (a context replaced whole, arrays, deletions, a large context, automatic transitions that
 * share their change's record), and an entry on the way without a change is refused, naming it.
 */
import {
  boundedAnswer,
  historyRecordOf,
  instanceAtEntry,
  MAX_HISTORY_RECORD_BYTES,
  MAX_RECORDED_ANSWER_BYTES,
  MAX_RECORDED_CALLS,
  MAX_RECORDED_TRACE_ENTRIES,
  NotFoundError,
  ValidationError,
  jsonSizeInBytes,
  type HistoryEntry,
  type JsonObject,
  type RecordedCall,
  type RecordedCondition,
  type Trigger,
} from '../../src/engine/model';

const trigger: Trigger = {
  id: 't-1',
  name: 'Submit',
  subjects: ['order-1', 'customer:7'],
  contentType: 'application/json',
  parameters: { amount: 12 },
  actor: { id: 'ann', name: 'Ann', roles: ['Signalbox.Sender'], via: 'token' },
};

function condition(index: number): RecordedCondition {
  return { path: `states.a.transitions[${index}].conditions[0]`, type: 'triggerName', result: index % 2 === 0 };
}

describe('historyRecordOf', () => {
  it('records the trigger, the trace, the context change and the calls in full', () => {
    const calls: RecordedCall[] = [{ by: 'condition', method: 'GET', url: 'https://svc.example/check?code=s3cret', status: 200, body: true }];
    const record = historyRecordOf({ detail: 'full', trigger, contextBefore: { a: 1 }, contextAfter: { a: 2, b: [1] }, trace: [condition(0)], calls });
    expect(record.trigger).toEqual({ id: 't-1', name: 'Submit', subjects: ['order-1', 'customer:7'], contentType: 'application/json', parameters: { amount: 12 }, actor: trigger.actor });
    expect(record.trace).toEqual([condition(0)]);
    expect(record.contextChange).toEqual([
      { op: 'replace', path: '/a', value: 2 },
      { op: 'add', path: '/b', value: [1] },
    ]);
    expect(record.calls).toHaveLength(1);
    expect(record.calls![0]!.url).not.toContain('s3cret');
  });

  it('with summary detail keeps the trigger without parameters and the change, no trace, no calls', () => {
    const record = historyRecordOf({
      detail: 'summary',
      trigger,
      contextBefore: {},
      contextAfter: { a: 1 },
      trace: [condition(0)],
      calls: [{ by: 'condition', method: 'GET', url: 'https://x', status: 200, body: true }],
    });
    expect(record.detail).toBe('summary');
    expect(record.trigger?.parameters).toBeUndefined();
    expect(record.trigger?.name).toBe('Submit');
    expect(record.trace).toBeUndefined();
    expect(record.calls).toBeUndefined();
    expect(record.contextChange).toEqual([{ op: 'add', path: '/a', value: 1 }]);
  });

  it('bounds the trace and the calls, counting what it left out', () => {
    const trace = Array.from({ length: MAX_RECORDED_TRACE_ENTRIES + 7 }, (_, index) => condition(index));
    const calls = Array.from({ length: MAX_RECORDED_CALLS + 3 }, (_, index): RecordedCall => ({ by: 'condition', method: 'GET', url: `https://svc.example/${index}`, status: 200, body: true }));
    const record = historyRecordOf({ detail: 'full', contextBefore: {}, contextAfter: {}, trace, calls });
    expect(record.trace).toHaveLength(MAX_RECORDED_TRACE_ENTRIES);
    expect(record.traceOmitted).toBe(7);
    expect(record.calls).toHaveLength(MAX_RECORDED_CALLS);
    expect(record.callsOmitted).toBe(3);
  });

  it('summarises a large answer and keeps a small one', () => {
    expect(boundedAnswer({ ok: true })).toEqual({ body: { ok: true } });
    const large = { text: 'x'.repeat(MAX_RECORDED_ANSWER_BYTES) };
    expect(boundedAnswer(large)).toEqual({ bodySummary: { bytes: jsonSizeInBytes(large), omitted: true } });
    expect(boundedAnswer(undefined)).toEqual({});
  });

  it('past the record limit drops the calls, then the trace, then the change, saying so', () => {
    const calls = Array.from({ length: MAX_RECORDED_CALLS }, (_, index): RecordedCall => ({
      by: 'condition',
      method: 'GET',
      url: `https://svc.example/${index}`,
      status: 200,
      body: 'y'.repeat(4000),
    }));
    const big = { blob: 'z'.repeat(MAX_HISTORY_RECORD_BYTES - 60_000) };
    const trace = Array.from({ length: MAX_RECORDED_TRACE_ENTRIES }, (_, index) => ({ ...condition(index), detail: 'd'.repeat(200) }));
    const fitsWithoutCalls = historyRecordOf({ detail: 'full', contextBefore: {}, contextAfter: big, trace, calls });
    expect(fitsWithoutCalls.calls).toBeUndefined();
    expect(fitsWithoutCalls.callsOmitted).toBe(MAX_RECORDED_CALLS);
    expect(fitsWithoutCalls.contextChange).toBeDefined();
    expect(jsonSizeInBytes(fitsWithoutCalls)).toBeLessThanOrEqual(MAX_HISTORY_RECORD_BYTES);

    const huge = { blob: 'z'.repeat(MAX_HISTORY_RECORD_BYTES) };
    const tooLarge = historyRecordOf({ detail: 'full', contextBefore: {}, contextAfter: huge, trace, calls });
    expect(tooLarge.contextChange).toBeUndefined();
    expect(tooLarge.contextChangeOmitted!.bytes).toBeGreaterThan(MAX_HISTORY_RECORD_BYTES);
    expect(tooLarge.traceOmitted).toBe(MAX_RECORDED_TRACE_ENTRIES);
    expect(jsonSizeInBytes(tooLarge)).toBeLessThanOrEqual(MAX_HISTORY_RECORD_BYTES);
  });
});

/** A history whose entries carry records of the given contexts, one after another from the empty one. */
function historyOfContexts(contexts: readonly JsonObject[]): HistoryEntry[] {
  let before: JsonObject = {};
  return contexts.map((context, sequence) => {
    const entry: HistoryEntry = {
      sequence,
      at: `2026-12-03T10:00:0${sequence}.000Z`,
      event: sequence === 0 ? 'created' : 'transitioned',
      triggerId: sequence === 0 ? null : `t-${sequence}`,
      transitionId: sequence === 0 ? null : `go-${sequence}`,
      fromStateId: sequence === 0 ? null : `s${sequence - 1}`,
      toStateId: `s${sequence}`,
      status: 'waiting',
      record: historyRecordOf({ detail: 'full', contextBefore: before, contextAfter: context }),
    };
    before = context;
    return entry;
  });
}

describe('instanceAtEntry', () => {
  const contexts: JsonObject[] = [
    { order: { id: 'o-1', lines: [{ sku: 'a', qty: 1 }] }, notes: 'first' },
    {
      order: {
        id: 'o-1',
        lines: [
          { sku: 'a', qty: 2 },
          { sku: 'b', qty: 1 },
        ],
      },
      notes: 'first',
      approved: false,
    },
    { order: { id: 'o-1', lines: [{ sku: 'b', qty: 1 }] }, approved: true },
    { replaced: ['whole'], count: 3 },
  ];
  const entries = historyOfContexts(contexts);

  it('gives the context as it was after each entry: arrays that grow and shrink, deletions, a context replaced whole', () => {
    contexts.forEach((context, sequence) => {
      const at = instanceAtEntry('i-1', entries, sequence);
      expect(at.context).toEqual(context);
      expect(at.stateId).toBe(`s${sequence}`);
      expect(at.contextAsOf).toBe(sequence);
      expect(at.entry).toBe(entries[sequence]);
    });
  });

  it('rebuilds a large context over many entries', () => {
    const many: JsonObject[] = [];
    let items: JsonObject[] = [];
    for (let step = 0; step < 60; step++) {
      items = [...items.filter((_, index) => !(step % 3 === 0 && index === step % 5)), { step, payload: 'p'.repeat(500), tags: [step, step + 1] }];
      many.push({ items, step, ...(step % 2 ? { odd: true } : {}) });
    }
    const history = historyOfContexts(many);
    expect(instanceAtEntry('i-1', history, 59).context).toEqual(many[59]);
    expect(instanceAtEntry('i-1', history, 31).context).toEqual(many[31]);
    expect(jsonSizeInBytes(many[59])).toBeGreaterThan(10_000);
  });

  it('takes an automatic transition inside one change to the context before that change', () => {
    const [created, , last] = historyOfContexts([{ a: 1 }, { a: 1 }, { a: 3 }]);
    const inside: HistoryEntry = { ...entries[1]!, sequence: 1, record: { detail: 'full', partOfChange: 2 } };
    const history = [created!, inside, last!];
    const at = instanceAtEntry('i-1', history, 1);
    expect(at.context).toEqual({ a: 1 });
    expect(at.contextAsOf).toBe(0);
    expect(instanceAtEntry('i-1', history, 2).context).toEqual({ a: 3 });
  });

  it('follows the version a migration moved it to', () => {
    const migrated: HistoryEntry = { ...entries[1]!, event: 'migrated', fromVersion: 1, toVersion: 2, record: { detail: 'full', contextChange: [] } };
    expect(instanceAtEntry('i-1', [entries[0]!, migrated], 1).workflowVersion).toBe(2);
    expect(instanceAtEntry('i-1', [entries[0]!, migrated], 0).workflowVersion).toBeUndefined();
  });

  it('answers NotFound for an entry it does not have', () => {
    expect(() => instanceAtEntry('i-1', entries, 9)).toThrow(NotFoundError);
  });

  it('refuses to rebuild past an entry without a record or with a change too large to keep, naming it', () => {
    const { record: _record, ...bare } = entries[1]!;
    expect(() => instanceAtEntry('i-1', [entries[0]!, bare, entries[2]!], 2)).toThrow(/history entry 1/);
    const omitted: HistoryEntry = { ...entries[1]!, record: { detail: 'full', contextChangeOmitted: { bytes: 300_000 } } };
    let error: unknown;
    try {
      instanceAtEntry('i-1', [entries[0]!, omitted], 1);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toContain('300000 bytes');
    // Entries before it are still reachable.
    expect(instanceAtEntry('i-1', [entries[0]!, omitted], 0).context).toEqual(contexts[0]);
  });
});
