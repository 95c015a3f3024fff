/**
 * The run loop records each change on its history entry (the trigger, the trace, the context's change, the
 * answers of the calls made while deciding) and the engine rebuilds the instance as it was after any entry
 * from those records alone: creation, a trigger whose action sets and removes context, automatic transitions
 * sharing their change's record, a recovery that repaired the context, a migration; `history.detail:
 * summary` keeps no parameters, trace or answers; a large answer is summarised. In-memory engine.
 */
import { DefinitionInvalidError, NotFoundError, validateDefinition, type ExternalRequest, type ExternalResponse, type WorkflowDefinitionInput } from '../../src/engine';
import { testEngine, trigger } from './support';

function orders(extra: Partial<WorkflowDefinitionInput> = {}): WorkflowDefinitionInput {
  return {
    id: 'orders',
    displayName: 'Orders',
    initialStateId: 'draft',
    states: {
      draft: {
        transitions: [
          {
            id: 'submit',
            targetStateId: 'routing',
            conditions: [
              { type: 'triggerName', name: 'Submit' },
              { type: 'invokeExternalService', url: 'https://stock.example/check' },
            ],
            actions: [{ type: 'setContext', expressions: { amount: 'trigger.parameters.amount', lines: 'trigger.parameters.lines' }, remove: ['draftNote'] }],
          },
        ],
      },
      routing: {
        entryActions: [{ type: 'setContext', values: { routed: true } }],
        transitions: [{ id: 'auto', targetStateId: 'review', automatic: true, otherwise: true }],
      },
      review: {
        entryActions: [{ type: 'setContext', expressions: { firstLine: 'context.lines[0]' } }],
        transitions: [{ id: 'approve', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Approve' }] }],
      },
      done: {},
    },
    ...extra,
  } as WorkflowDefinitionInput;
}

async function started(extra: Partial<WorkflowDefinitionInput> = {}, answer: (request: ExternalRequest) => ExternalResponse = () => ({ status: 200, body: true })) {
  const calls: ExternalRequest[] = [];
  const http = { send: async (request: ExternalRequest): Promise<ExternalResponse> => (calls.push(request), answer(request)) };
  const test = testEngine({ http });
  await test.engine.createWorkflow(test.engine.validateWorkflow(orders(extra)));
  await test.engine.createInstance({ workflowId: 'orders', instanceId: 'o1', context: { customer: 'c-7', draftNote: 'call back' } });
  return { ...test, calls };
}

const submit = trigger('Submit', { id: 'submit-1', subjects: ['o1'], contentType: 'application/json', parameters: { amount: 40, lines: [{ sku: 'a' }, { sku: 'b' }] } });

describe('history records, written by the run loop', () => {
  it('record the trigger, the trace, the context change and the answers on the change’s last entry; its automatic steps point at it', async () => {
    const { engine } = await started();
    await engine.applyTrigger('o1', submit);
    const history = (await engine.getHistory('o1')).items;
    expect(history.map((entry) => entry.toStateId)).toEqual(['draft', 'routing', 'review']);
    expect(history[0]!.record?.contextChange).toEqual([
      { op: 'add', path: '/customer', value: 'c-7' },
      { op: 'add', path: '/draftNote', value: 'call back' },
    ]);
    expect(history[1]!.record).toEqual({ detail: 'full', partOfChange: 2 });
    const record = history[2]!.record!;
    expect(record.trigger).toEqual({ id: 'submit-1', name: 'Submit', subjects: ['o1'], contentType: 'application/json', parameters: submit.parameters });
    expect(record.trace?.map((entry) => [entry.path, entry.result])).toEqual(
      expect.arrayContaining([
        ['states.draft.transitions[0].conditions[0]', true],
        ['states.draft.transitions[0].conditions[1]', true],
      ]),
    );
    expect(record.calls).toEqual([{ by: 'condition', method: 'POST', url: 'https://stock.example/check', status: 200, body: true }]);
    expect(record.contextChange).toEqual(
      expect.arrayContaining([
        { op: 'remove', path: '/draftNote' },
        { op: 'add', path: '/amount', value: 40 },
        { op: 'add', path: '/routed', value: true },
        { op: 'add', path: '/firstLine', value: { sku: 'a' } },
      ]),
    );
  });

  it('rebuild the instance as it was after every entry', async () => {
    const { engine } = await started();
    await engine.applyTrigger('o1', submit);
    await engine.applyTrigger('o1', trigger('Approve', { subjects: ['o1'] }));
    const now = await engine.getInstance('o1');
    expect(await engine.getInstanceAtEntry('o1', 0)).toMatchObject({ sequence: 0, stateId: 'draft', status: 'waiting', workflowVersion: 1, context: { customer: 'c-7', draftNote: 'call back' } });
    // Inside the change: the context before it (the change's steps share one record).
    expect(await engine.getInstanceAtEntry('o1', 1)).toMatchObject({ stateId: 'routing', contextAsOf: 0, context: { customer: 'c-7', draftNote: 'call back' } });
    const afterSubmit = await engine.getInstanceAtEntry('o1', 2);
    expect(afterSubmit.context).toEqual({ customer: 'c-7', amount: 40, lines: [{ sku: 'a' }, { sku: 'b' }], routed: true, firstLine: { sku: 'a' } });
    const last = await engine.getInstanceAtEntry('o1', 3);
    expect(last).toMatchObject({ stateId: 'done', status: 'complete' });
    expect(last.context).toEqual(now.context);
    await expect(engine.getInstanceAtEntry('o1', 4)).rejects.toBeInstanceOf(NotFoundError);
    await expect(engine.getInstanceAtEntry('nobody', 0)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rebuild across a fault, a recovery that repaired the context, and a migration to another version', async () => {
    const { engine } = await started({}, () => ({ status: 500, body: { error: 'down' } }));
    await engine.applyTrigger('o1', submit);
    expect((await engine.getInstance('o1')).status).toBe('faulted');
    await engine.recover('o1', 'draft', {}, { contextPatch: { draftNote: null, repaired: true } });
    const history = (await engine.getHistory('o1')).items;
    const fault = history.find((entry) => entry.event === 'faulted')!;
    expect(fault.record?.calls?.[0]).toMatchObject({ by: 'condition', status: 500, body: { error: 'down' } });
    const recovered = history[history.length - 1]!;
    expect(await engine.getInstanceAtEntry('o1', recovered.sequence)).toMatchObject({ stateId: 'draft', status: 'waiting', context: { customer: 'c-7', repaired: true } });

    const v2 = await engine.addWorkflowVersion(orders({ displayName: 'Orders v2' }), { ifMatch: '*' });
    const migration = { workflowId: 'orders', fromVersion: 1, toVersion: v2.version, stateMap: { draft: 'draft' } };
    expect(await engine.migrationsAndBulkActions.migrate('o1', migration)).toMatchObject({ outcome: 'migrated' });
    const migrated = (await engine.getHistory('o1')).items.at(-1)!;
    expect(migrated.event).toBe('migrated');
    expect(await engine.getInstanceAtEntry('o1', migrated.sequence)).toMatchObject({ workflowVersion: 2, context: { customer: 'c-7', repaired: true } });
    // Before the migration it ran under the version the migration moved it from.
    expect((await engine.getInstanceAtEntry('o1', recovered.sequence)).workflowVersion).toBe(1);
  });

  it('with `history.detail: summary` keep the trigger’s name and the context change only', async () => {
    const { engine } = await started({ history: { detail: 'summary', retain: 'P90D' } } as Partial<WorkflowDefinitionInput>);
    await engine.applyTrigger('o1', submit);
    const record = (await engine.getHistory('o1')).items[2]!.record!;
    expect(record.detail).toBe('summary');
    expect(record.trigger).toEqual({ id: 'submit-1', name: 'Submit', subjects: ['o1'], contentType: 'application/json' });
    expect(record.trace).toBeUndefined();
    expect(record.calls).toBeUndefined();
    expect((await engine.getInstanceAtEntry('o1', 2)).context).toMatchObject({ amount: 40, routed: true });
  });

  it('summarise an answer too large to keep, saying its size', async () => {
    const { engine } = await started({}, () => ({ status: 200, body: { stock: 'x'.repeat(10_000) } }));
    await engine.applyTrigger('o1', submit);
    // Not `true`: the condition errs and the instance faults, with the answer summarised on its entry.
    const faulted = (await engine.getHistory('o1')).items.find((entry) => entry.record?.calls)!;
    expect(faulted.event).toBe('faulted');
    expect(faulted.record!.calls![0]).toMatchObject({ status: 200, bodySummary: { omitted: true, bytes: expect.any(Number) } });
    expect(faulted.record!.calls![0]!.bodySummary!.bytes).toBeGreaterThan(10_000);
    expect(faulted.record!.calls![0]!.body).toBeUndefined();
  });
});

describe('`history` in a definition', () => {
  const problems = (history: unknown): string[] => {
    try {
      validateDefinition(orders({ history } as Partial<WorkflowDefinitionInput>));
      return [];
    } catch (error) {
      if (error instanceof DefinitionInvalidError) return error.issues.map(({ path, message }) => `${path}: ${message}`);
      throw error;
    }
  };

  it('takes a detail and an ISO 8601 retention, and names the field that is wrong', () => {
    expect(problems({ detail: 'full', retain: 'P90D' })).toEqual([]);
    expect(problems({ detail: 'everything' })).toEqual([expect.stringContaining('history.detail')]);
    expect(problems({ retain: 'ninety days' })).toEqual([expect.stringMatching(/^history\.retain: .*ISO 8601/)]);
    expect(problems({ retain: 'PT1H' })).toEqual([expect.stringMatching(/^history\.retain: .*one day/)]);
    expect(problems({ retain: 'P20Y' })).toEqual([expect.stringMatching(/^history\.retain: .*3650 days/)]);
    expect(problems({ keep: true })).toHaveLength(1);
  });
});
