/** Decision traces (issue 16): every per-instance result says which conditions were evaluated and how. */
import { z } from 'zod';
import { createRegistry, defineCondition, validateDefinition, type WorkflowDefinitionInput } from '../../src/engine';
import { MAX_TRACED_RESULTS, accumulateResults, emptyTotals, mergeTotals } from '../../src/engine/operations';
import { localHttp } from '../outbound/support';
import { instanceIn, processTrigger, startServer, json, testEffects, trigger } from './support';

const probe = defineCondition({
  type: 'probe',
  schema: z.strictObject({ type: z.literal('probe'), id: z.string().optional(), result: z.boolean().default(true), fail: z.boolean().default(false) }),
  evaluate: (config) => {
    if (config.fail) throw new Error('the probe broke');
    return config.result;
  },
});
const registry = createRegistry({ conditions: [probe] });
const p = (result = true, extra: object = {}) => ({ type: 'probe', result, ...extra });

function workflow(a: object, b: object = {}): WorkflowDefinitionInput {
  return {
    id: 'wf',
    displayName: 'wf',
    initialStateId: 'draft',
    states: {
      draft: { transitions: [{ id: 'submit', targetStateId: 'review', conditions: [{ type: 'triggerName', name: 'Submit' }] }], ...a },
      review: { transitions: [{ id: 'back', targetStateId: 'draft', conditions: [{ type: 'triggerName', name: 'Back' }] }], ...b },
    },
  };
}

async function decide(input: WorkflowDefinitionInput, name = 'Submit', effects = testEffects({ registry })) {
  const def = validateDefinition(input, registry);
  return processTrigger(def, instanceIn(def, 'draft'), trigger(name), effects);
}

describe('decision traces', () => {
  it("transitioned: the chosen transition's conditions, after the earlier transitions that did not match", async () => {
    const { result } = await decide(
      workflow({
        transitions: [
          { id: 'cancel', targetStateId: 'review', conditions: [{ type: 'triggerName', name: 'Cancel' }, p()] },
          { id: 'submit', targetStateId: 'review', conditions: [{ type: 'triggerName', name: 'Submit' }, p()] },
        ],
      }),
    );
    expect(result.outcome).toBe('transitioned');
    expect(result.trace).toEqual([
      { path: 'states.draft.transitions[0].conditions[0]', type: 'triggerName', result: false },
      { path: 'states.draft.transitions[0].conditions[1]', type: 'probe', result: 'skipped' },
      { path: 'states.draft.transitions[1].conditions[0]', type: 'triggerName', result: true },
      { path: 'states.draft.transitions[1].conditions[1]', type: 'probe', result: true },
    ]);
  });

  it('noTransition: the trace names the false condition of each transition', async () => {
    const { result } = await decide(workflow({}), 'Other');
    expect(result.outcome).toBe('noTransition');
    expect(result.trace).toEqual([{ path: 'states.draft.transitions[0].conditions[0]', type: 'triggerName', result: false }]);
  });

  it('exitBlocked: the false exit condition, the rest skipped, no transition evaluated', async () => {
    const { result } = await decide(workflow({ exitConditions: [p(true), p(false), p(true)] }));
    expect(result.outcome).toBe('exitBlocked');
    expect(result.trace).toEqual([
      { path: 'states.draft.exitConditions[0]', type: 'probe', result: true },
      { path: 'states.draft.exitConditions[1]', type: 'probe', result: false },
      { path: 'states.draft.exitConditions[2]', type: 'probe', result: 'skipped' },
    ]);
  });

  it("entryBlocked: the target's entry conditions follow the transition's", async () => {
    const { result } = await decide(workflow({}, { entryConditions: [p(false)] }));
    expect(result.outcome).toBe('entryBlocked');
    expect(result.trace?.map((entry) => [entry.path, entry.result])).toEqual([
      ['states.draft.transitions[0].conditions[0]', true],
      ['states.review.entryConditions[0]', false],
    ]);
  });

  it('faulted: the failing condition is `error` with the message, the ones after it skipped', async () => {
    const { result } = await decide(workflow({ exitConditions: [p(true, { fail: true }), p()] }));
    expect(result.outcome).toBe('faulted');
    expect(result.trace).toEqual([
      { path: 'states.draft.exitConditions[0]', type: 'probe', result: 'error', detail: 'the probe broke' },
      { path: 'states.draft.exitConditions[1]', type: 'probe', result: 'skipped' },
    ]);
  });

  it('nested conditions are traced under their parent, short-circuited children skipped', async () => {
    const { result } = await decide(
      workflow({
        transitions: [
          {
            id: 'submit',
            targetStateId: 'review',
            conditions: [
              { type: 'any', conditions: [p(true), p(false)] },
              { type: 'not', condition: p(true) },
            ],
          },
        ],
      }),
    );
    expect(result.outcome).toBe('noTransition');
    expect(result.trace).toEqual([
      { path: 'states.draft.transitions[0].conditions[0]', type: 'any', result: true },
      { path: 'states.draft.transitions[0].conditions[0].conditions[0]', type: 'probe', result: true },
      { path: 'states.draft.transitions[0].conditions[0].conditions[1]', type: 'probe', result: 'skipped' },
      { path: 'states.draft.transitions[0].conditions[1]', type: 'not', result: false },
      { path: 'states.draft.transitions[0].conditions[1].condition', type: 'probe', result: true },
    ]);
  });

  it("an expression's detail is its value", async () => {
    const { result } = await decide(workflow({ transitions: [{ id: 'submit', targetStateId: 'review', conditions: [{ type: 'expression', expression: '$count([1,2]) > 5' }] }] }));
    expect(result.trace).toEqual([{ path: 'states.draft.transitions[0].conditions[0]', type: 'expression', result: false, detail: '$count([1,2]) > 5 → false' }]);
  });

  it("an external condition's detail is the service's answer, and a refusal is an error with its status", async () => {
    const server = await startServer((request, response) => (request.url === '/yes' ? json(response, 200, true) : json(response, 503, { error: 'down' })));
    try {
      const http = await localHttp();
      const effects = testEffects({ registry, http });
      const yes = await decide(workflow({ transitions: [{ id: 'submit', targetStateId: 'review', conditions: [{ type: 'invokeExternalService', url: `${server.url}/yes` }] }] }), 'Submit', effects);
      expect(yes.result.trace).toEqual([{ path: 'states.draft.transitions[0].conditions[0]', type: 'invokeExternalService', result: true, detail: `POST ${server.url}/yes answered true` }]);
      const down = await decide(workflow({ transitions: [{ id: 'submit', targetStateId: 'review', conditions: [{ type: 'invokeExternalService', url: `${server.url}/down` }] }] }), 'Submit', effects);
      expect(down.result.outcome).toBe('faulted');
      expect(down.result.trace).toEqual([{ path: 'states.draft.transitions[0].conditions[0]', type: 'invokeExternalService', result: 'error', detail: expect.stringContaining('503') }]);
    } finally {
      await server.close();
    }
  });

  it("no trace when no condition was looked at (not interested), and the instance's own record keeps none", async () => {
    const def = validateDefinition(workflow({}), registry);
    const notInterested = await processTrigger(def, instanceIn(def, 'draft'), trigger('Submit', { subjects: ['someone-else'] }), testEffects({ registry }));
    expect(notInterested.result.outcome).toBe('notInterested');
    expect(notInterested.result.trace).toBeUndefined();
    const moved = await decide(workflow({}));
    expect(moved.result.trace).toHaveLength(1);
    expect(JSON.stringify(moved.instance.appliedTriggers)).not.toContain('trace');
  });

  it('a long detail is shortened', async () => {
    const long = `"${'x'.repeat(500)}" = "y"`;
    const { result } = await decide(workflow({ transitions: [{ id: 'submit', targetStateId: 'review', conditions: [{ type: 'expression', expression: long }] }] }));
    expect(result.trace![0]!.detail!.length).toBeLessThanOrEqual(200);
  });
});

describe('traces in operation totals', () => {
  const trace = [{ path: 'states.a.transitions[0].conditions[0]', type: 'triggerName', result: false as const }];
  const results = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ instanceId: `i${from + i}`, outcome: 'noTransition' as const, trace }));

  it('keeps traces on the first 100 results across batches, and says when it left some out', () => {
    const first = accumulateResults(emptyTotals(), results(0, 60));
    expect(first.tracesTruncated).toBeUndefined();
    const merged = mergeTotals(first, accumulateResults(emptyTotals(), results(60, 60)));
    expect(merged.instances).toHaveLength(120);
    expect(merged.instances.filter((result) => result.trace)).toHaveLength(MAX_TRACED_RESULTS);
    expect(merged.instances[99]!.trace).toEqual(trace);
    expect(merged.instances[100]!.trace).toBeUndefined();
    expect(merged.tracesTruncated).toBe(true);
    expect(merged.summary.noTransition).toBe(120);
  });
});
