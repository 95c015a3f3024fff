import { onePage } from '../../src/engine/ports';
import {
  ConflictError,
  DefinitionInvalidError,
  LeaseLostError,
  NotFoundError,
  PreconditionFailedError,
  StorageError,
  raisedTriggerId,
  type Engine,
  type WorkflowDefinitionInput,
} from '../../src/engine';
import { testEngine } from './support';

const flow: WorkflowDefinitionInput = {
  id: 'flow',
  displayName: 'Flow',
  initialStateId: 'a',
  states: {
    a: {
      interests: ['owner:{{context.owner}}'],
      transitions: [
        { id: 'go', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Go' }] },
        { id: 'break', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Break' }] },
      ],
    },
    b: {
      interests: ['b-watchers'],
      entryActions: [{ type: 'raiseTrigger', trigger: { name: 'EnteredB', subjects: ['audit', '{{instance.id}}'] } }],
      transitions: [
        { id: 'finish', targetStateId: 'c', conditions: [{ type: 'triggerName', name: 'Finish' }] },
        { id: 'fail', targetStateId: 'c', conditions: [{ type: 'triggerName', name: 'Fail' }], actions: [{ type: 'setContext', expressions: { x: '$error("nope")' } }] },
      ],
    },
    c: {},
  },
};

async function withFlow(options: Parameters<typeof testEngine>[0] = {}) {
  const env = testEngine(options);
  await env.engine.createWorkflow(flow);
  return env;
}

const go = (id: string, name = 'Go', subjects = ['i1']) => ({ id, name, subjects });

/** The id of the first trigger raised by `cause` of instance `instanceId`, with its incarnation. */
async function raised(engine: Engine, instanceId: string, cause: string): Promise<string> {
  return raisedTriggerId(instanceId, cause, 0, (await engine.getInstance(instanceId)).incarnation);
}

describe('Engine: workflows', () => {
  it('creates, rejects an invalid definition with every issue, and refuses a duplicate id', async () => {
    const { engine } = testEngine();
    const created = await engine.createWorkflow(flow);
    expect(created.version).toBe(1);
    await expect(engine.createWorkflow(flow)).rejects.toBeInstanceOf(ConflictError);
    const invalid = engine.createWorkflow({ id: 'bad', displayName: 'x', initialStateId: 'nope', states: { a: { transitions: [{ id: 't', targetStateId: 'zz' }] } } });
    await expect(invalid).rejects.toBeInstanceOf(DefinitionInvalidError);
    await expect(invalid).rejects.toMatchObject({ issues: [{ path: 'initialStateId' }, { path: 'states.a.transitions[0].targetStateId' }] });
  });

  it("dates each version by the engine's clock, not the store's (issue 10)", async () => {
    const { engine, clock } = testEngine();
    expect((await engine.createWorkflow(flow)).createdAt).toBe('2026-01-01T00:00:00.000Z');
    clock.advance(60_000);
    expect((await engine.addWorkflowVersion({ ...flow, displayName: 'v2' }, { ifMatch: '*' })).createdAt).toBe('2026-01-01T00:01:00.000Z');
    expect((await engine.getWorkflow('flow', 1)).createdAt).toBe('2026-01-01T00:00:00.000Z');
  });

  it('parses untyped input at the edge: validateWorkflow gives the typed definition, or every problem', () => {
    const { engine } = testEngine();
    expect(engine.validateWorkflow(JSON.parse(JSON.stringify(flow)))).toMatchObject({ id: 'flow', states: { c: { transitions: [] } } });
    expect(() => engine.validateWorkflow({ id: 'bad' })).toThrow(DefinitionInvalidError);
  });

  // PUT semantics (If-Match, the body's id): in the engine again since issue 23 (section 3), the route only reads the header.
  const putWorkflow = (engine: Engine, workflowId: string, body: unknown, ifMatch: string | undefined) => engine.putWorkflow(workflowId, body, ifMatch === undefined ? {} : { ifMatch });
  it('PUT: creates v1 without If-Match when absent, conflicts when present, versions with a matching ETag, refuses stale ones', async () => {
    const { engine } = testEngine();
    const { id: _id, ...body } = flow;
    const first = await putWorkflow(engine, 'flow', body, undefined);
    expect(first).toMatchObject({ created: true, workflow: { version: 1, definition: { id: 'flow' } } });
    await expect(putWorkflow(engine, 'flow', body, undefined)).rejects.toBeInstanceOf(ConflictError);
    const second = await putWorkflow(engine, 'flow', { ...body, displayName: 'v2' }, first.workflow.etag);
    expect(second).toMatchObject({ created: false, workflow: { version: 2, definition: { displayName: 'v2' } } });
    await expect(putWorkflow(engine, 'flow', body, first.workflow.etag)).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(putWorkflow(engine, 'flow', body, '*')).resolves.toMatchObject({ workflow: { version: 3 } });
    await expect(putWorkflow(engine, 'other', body, '*')).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(putWorkflow(engine, 'flow', { ...body, id: 'different' }, '*')).rejects.toMatchObject({ code: 'validation', issues: [{ path: 'id' }] });
    expect((await engine.getWorkflow('flow')).version).toBe(3);
    expect((await engine.getWorkflow('flow', 2)).definition.displayName).toBe('v2');
    await expect(engine.getWorkflow('flow', 9)).rejects.toBeInstanceOf(NotFoundError);
    await expect(engine.getWorkflow('missing')).rejects.toBeInstanceOf(NotFoundError);
    expect((await engine.listWorkflows()).items).toEqual([{ id: 'flow', displayName: 'Flow', version: 3 }]);
  });
});

describe('Engine: instances', () => {
  it('an instance keeps the workflow version it started with; new instances take the latest', async () => {
    const { engine } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'old' });
    const { id: _id, ...body } = flow;
    const renamed = { ...body, states: { ...body.states, a: { transitions: [{ id: 'go2', targetStateId: 'c', conditions: [{ type: 'triggerName', name: 'Go' }] }] } } };
    await engine.addWorkflowVersion({ id: 'flow', ...renamed }, { ifMatch: '*' });
    await engine.createInstance({ workflowId: 'flow', instanceId: 'new' });
    expect(await engine.applyTrigger('old', go('t1', 'Go', ['old']))).toMatchObject({ transitionId: 'go', toStateId: 'b' });
    expect(await engine.applyTrigger('new', go('t1', 'Go', ['new']))).toMatchObject({ transitionId: 'go2', toStateId: 'c' });
    expect((await engine.getInstance('new')).workflowVersion).toBe(2);
  });

  it('creates an instance with a created history entry and its interests indexed', async () => {
    const { engine, interests } = await withFlow();
    const instance = await engine.createInstance({ workflowId: 'flow', instanceId: 'i1', context: { owner: 'ann' } });
    expect(instance).toMatchObject({ id: 'i1', stateId: 'a', status: 'waiting', workflowVersion: 1, historyLength: 1, interests: ['Break', 'Go', 'i1', 'owner:ann'] });
    expect(interests.subjectsOf('i1')).toEqual(['Break', 'Go', 'i1', 'owner:ann']);
    expect((await engine.getHistory('i1')).items).toEqual([expect.objectContaining({ sequence: 0, event: 'created', toStateId: 'a', status: 'waiting' })]);
    expect((await engine.findCandidates(['owner:ann'])).items).toEqual(['i1']);
  });

  it('validates the request, and refuses an unknown workflow and a duplicate id (never overwrites)', async () => {
    const { engine, instances } = await withFlow();
    await expect(engine.createInstance({ workflowId: 'flow', instanceId: 'bad id!', extra: 1 } as never)).rejects.toMatchObject({
      code: 'validation',
      issues: expect.arrayContaining([expect.objectContaining({ path: 'instanceId' }), expect.objectContaining({ path: '$' })]),
    });
    await expect(engine.createInstance({ workflowId: 'nope' })).rejects.toBeInstanceOf(NotFoundError);
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1', context: { owner: 'ann' } });
    await expect(engine.createInstance({ workflowId: 'flow', instanceId: 'i1', context: { owner: 'bob' } })).rejects.toBeInstanceOf(ConflictError);
    expect((await instances.get('i1'))?.context).toEqual({ owner: 'ann' });
    const generated = await engine.createInstance({ workflowId: 'flow' });
    expect(generated.id).toBe('gen-1');
  });

  it('creates a faulted instance when an initial entry condition is false (with a null trigger)', async () => {
    const { engine } = testEngine();
    await engine.createWorkflow({
      id: 'guarded',
      displayName: 'g',
      initialStateId: 'a',
      states: { a: { entryConditions: [{ type: 'expression', expression: 'trigger = null and $exists(context.ok)' }], transitions: [{ id: 't', targetStateId: 'a' }] } },
    });
    const bad = await engine.createInstance({ workflowId: 'guarded', instanceId: 'x' });
    expect(bad).toMatchObject({ status: 'faulted', stateId: 'a', fault: { triggerId: null, message: expect.stringContaining('entry condition [0]') } });
    const good = await engine.createInstance({ workflowId: 'guarded', instanceId: 'y', context: { ok: 1 } });
    expect(good.status).toBe('waiting');
  });

  it('names the false entry condition by its id and its expression (creation and recovery)', async () => {
    const { engine } = testEngine();
    await engine.createWorkflow({
      id: 'named-guard',
      displayName: 'g',
      initialStateId: 'a',
      states: {
        a: {
          entryConditions: [{ id: 'has-amount', type: 'expression', expression: '$exists(context.amount)' }],
          transitions: [{ id: 't', targetStateId: 'a' }],
        },
      },
    });
    const faulted = await engine.createInstance({ workflowId: 'named-guard', instanceId: 'n1' });
    expect(faulted.fault?.message).toBe('entry condition [0] (expression "has-amount") of the initial state "a" is false: $exists(context.amount) → false');
    const recovered = await engine.recover('n1', 'a');
    expect(recovered.fault?.message).toBe('entry condition [0] (expression "has-amount") of state "a" is false: $exists(context.amount) → false');
  });

  it('names a condition that fails by its id and its expression', async () => {
    const { engine } = testEngine();
    await engine.createWorkflow({
      id: 'exploding',
      displayName: 'e',
      initialStateId: 'a',
      states: { a: { transitions: [{ id: 'go', targetStateId: 'b', conditions: [{ id: 'explode', type: 'expression', expression: '$error("boom")' }] }] }, b: {} },
    });
    await engine.createInstance({ workflowId: 'exploding', instanceId: 'e1' });
    await engine.applyTrigger('e1', { id: 'g1', name: 'Go', subjects: ['e1'] });
    expect((await engine.getInstance('e1')).fault?.message).toMatch(/^condition of transition "go" of state "a" \[0\] \(expression "explode": \$error\("boom"\)\): .*boom/);
  });

  it('getInstance and getHistory of an unknown instance are NotFound; listInstances filters', async () => {
    const { engine } = await withFlow();
    await expect(engine.getInstance('zz')).rejects.toBeInstanceOf(NotFoundError);
    await expect(engine.getHistory('zz')).rejects.toBeInstanceOf(NotFoundError);
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i2' });
    await engine.applyTrigger('i2', go('t1', 'Go', ['i2']));
    expect((await engine.listInstances({ stateId: 'b' })).items.map((item) => item.id)).toEqual(['i2']);
    const page = await engine.listInstances({ workflowId: 'flow' }, { maxPageSize: 1 });
    expect(page.items.map((item) => item.id)).toEqual(['i1']);
    expect((await engine.listInstances({}, { continuationToken: page.continuationToken! })).items.map((item) => item.id)).toEqual(['i2']);
  });
});

describe('Engine: applyTrigger', () => {
  it('notFound for an unknown instance, nothing written', async () => {
    const { engine, instances } = await withFlow();
    const writes = instances.writes;
    await expect(engine.applyTrigger('ghost', go('t1'))).resolves.toEqual({ instanceId: 'ghost', outcome: 'notFound' });
    expect(instances.writes).toBe(writes);
  });

  it('writes nothing when nothing changed (noTransition, notInterested, notActive, duplicate)', async () => {
    const { engine, instances, interests, delivery } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    const before = { instances: instances.writes, index: interests.writes, dispatched: delivery.calls };
    expect((await engine.applyTrigger('i1', go('n1', 'Nothing'))).outcome).toBe('noTransition');
    expect((await engine.applyTrigger('i1', go('n2', 'Go', ['elsewhere']))).outcome).toBe('notInterested');
    expect({ instances: instances.writes, index: interests.writes, dispatched: delivery.calls }).toEqual(before);
    expect((await engine.applyTrigger('i1', go('t1'))).outcome).toBe('transitioned');
    const after = { instances: instances.writes, index: interests.writes };
    expect((await engine.applyTrigger('i1', go('t1'))).outcome).toBe('duplicate');
    await engine.cancel('i1');
    const cancelled = instances.writes;
    expect((await engine.applyTrigger('i1', go('t9', 'Finish'))).outcome).toBe('notActive');
    expect(instances.writes).toBe(cancelled);
    expect(interests.writes).toBe(after.index);
  });

  it('saves the change with its history entry and outbox rows in one save, updates the index, relays and deletes the rows', async () => {
    const { engine, instances, interests, delivery } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1', context: { owner: 'ann' } });
    const writes = instances.writes;
    const result = await engine.applyTrigger('i1', go('t1'));
    // Changed by issue 16: every result carries the trace of the conditions evaluated.
    expect(result).toEqual({
      instanceId: 'i1',
      outcome: 'transitioned',
      transitionId: 'go',
      fromStateId: 'a',
      toStateId: 'b',
      trace: [{ path: 'states.a.transitions[0].conditions[0]', type: 'triggerName', result: true }],
    });
    // Changed by issue 10: one save (the change, its history entry and its outbox row), not a second one
    // to clear the outbox; the relay deletes the delivered row instead.
    expect(instances.writes).toBe(writes + 1);
    expect(delivery.delivered).toEqual([{ id: await raised(engine, 'i1', 't.t1'), name: 'EnteredB', subjects: ['audit', 'i1'], causalDepth: 1, causalBudget: 9999, raisedBy: 'i1' }]);
    expect(await instances.listOutbox('i1')).toEqual([]);
    const stored = await engine.getInstance('i1');
    expect(stored).toMatchObject({ stateId: 'b', outbox: [await raised(engine, 'i1', 't.t1')], historyLength: 2, interests: ['Fail', 'Finish', 'b-watchers', 'i1'] });
    expect(interests.subjectsOf('i1')).toEqual(['Fail', 'Finish', 'b-watchers', 'i1']);
    expect((await engine.getHistory('i1')).items.map((entry) => [entry.sequence, entry.event, entry.transitionId])).toEqual([
      [0, 'created', null],
      [1, 'transitioned', 'go'],
    ]);
  });

  it('a change without raised triggers is exactly one write', async () => {
    const { engine, instances } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    await engine.applyTrigger('i1', go('t1'));
    const writes = instances.writes;
    await engine.applyTrigger('i1', go('t2', 'Finish'));
    expect(instances.writes).toBe(writes + 1);
    expect((await engine.getInstance('i1')).status).toBe('complete');
  });

  it('a repeated delivery answers duplicate with what the trigger did then, from the instance record (no history read)', async () => {
    const { engine, instances } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    const first = await engine.applyTrigger('i1', go('t1'));
    // The instance's record of what a trigger did keeps no trace (issue 16: traces travel in results only).
    const { instanceId: _i, trace: _trace, ...did } = first;
    expect(await engine.applyTrigger('i1', go('t1'))).toEqual({ instanceId: 'i1', outcome: 'duplicate', applied: did });
    await engine.applyTrigger('i1', go('t2', 'Fail'));
    const writes = instances.writes;
    // The instance is faulted now, yet the repeat of the trigger that faulted it is a duplicate, not notActive.
    expect(await engine.applyTrigger('i1', go('t2', 'Fail'))).toMatchObject({
      outcome: 'duplicate',
      applied: { outcome: 'faulted', transitionId: 'fail', fromStateId: 'b', toStateId: 'b', error: expect.stringContaining('nope') },
    });
    expect(instances.writes).toBe(writes);
    expect((await engine.applyTrigger('i1', go('never-sent', 'Finish'))).outcome).toBe('notActive');
  });

  it('a fault is an outcome: saved faulted with the trigger id, history faulted, recoverable', async () => {
    const { engine } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    await engine.applyTrigger('i1', go('t1'));
    const result = await engine.applyTrigger('i1', go('t2', 'Fail'));
    expect(result).toMatchObject({ outcome: 'faulted', error: expect.stringContaining('nope') });
    const faulted = await engine.getInstance('i1');
    expect(faulted).toMatchObject({ status: 'faulted', stateId: 'b', fault: { triggerId: 't2' } });
    expect((await engine.applyTrigger('i1', go('t3', 'Finish'))).outcome).toBe('notActive');

    await expect(engine.recover('i1', 'missing')).rejects.toMatchObject({ code: 'validation', issues: [{ path: 'stateId' }] });
    const recovered = await engine.recover('i1', 'b');
    expect(recovered).toMatchObject({ status: 'waiting', stateId: 'b' });
    expect(recovered.fault).toBeUndefined();
    await expect(engine.recover('i1', 'b')).rejects.toBeInstanceOf(ConflictError);
    expect((await engine.getHistory('i1')).items.map((entry) => entry.event)).toEqual(['created', 'transitioned', 'faulted', 'recovered']);
  });

  it('a recovery re-runs entry actions; their raised triggers get fresh deterministic ids', async () => {
    const { engine, delivery } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    await engine.applyTrigger('i1', go('t1'));
    await engine.applyTrigger('i1', go('t2', 'Fail'));
    await engine.recover('i1', 'b');
    expect(delivery.delivered.map((item) => item.id)).toEqual([await raised(engine, 'i1', 't.t1'), await raised(engine, 'i1', 'r3')]);
  });

  it('cancel: cancels waiting or faulted instances; ConflictError for complete or cancelled ones', async () => {
    const { engine } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    const cancelled = await engine.cancel('i1');
    expect(cancelled.status).toBe('cancelled');
    await expect(engine.cancel('i1')).rejects.toBeInstanceOf(ConflictError);
    await expect(engine.cancel('ghost')).rejects.toBeInstanceOf(NotFoundError);
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i2' });
    await engine.applyTrigger('i2', go('t1', 'Go', ['i2']));
    await engine.applyTrigger('i2', go('t2', 'Finish', ['i2']));
    await expect(engine.cancel('i2')).rejects.toBeInstanceOf(ConflictError);
  });

  it('a concurrent write (412) makes it reload and reprocess against the new state', async () => {
    const { engine, instances } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    let interfered = false;
    instances.beforeSave = async (instance) => {
      if (interfered || instance.stateId !== 'b') return;
      interfered = true;
      // Another writer (without the lease) moves the instance first.
      const current = (await instances.get('i1'))!;
      const { etag, ...plain } = current;
      await instances.save({ ...plain, context: { sneaky: true } }, {}, { ifMatch: etag });
    };
    const result = await engine.applyTrigger('i1', go('t1'));
    expect(result.outcome).toBe('transitioned');
    expect(await engine.getInstance('i1')).toMatchObject({ stateId: 'b', context: { sneaky: true } });
  });

  it('gives up with a retryable PreconditionFailedError when the instance keeps changing', async () => {
    const { engine, instances } = await withFlow({ maxSaveAttempts: 2 });
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    instances.beforeSave = async (instance) => {
      if (instance.stateId !== 'b') return;
      const { etag, ...plain } = (await instances.get('i1'))!;
      await instances.save(plain, {}, { ifMatch: etag });
    };
    await expect(engine.applyTrigger('i1', go('t1'))).rejects.toBeInstanceOf(PreconditionFailedError);
  });

  it('does not save when the lease was lost during processing', async () => {
    const { engine, instances, leases } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    const writes = instances.writes;
    const slowIndex = engine['ports'].interests;
    const add = slowIndex.add.bind(slowIndex);
    slowIndex.add = async (id, subjects) => {
      leases.break('i1'); // lost between processing and the save
      return add(id, subjects);
    };
    await expect(engine.applyTrigger('i1', go('t1'))).rejects.toBeInstanceOf(LeaseLostError);
    expect(instances.writes).toBe(writes);
    expect((await engine.getInstance('i1')).stateId).toBe('a');
  });

  it('relays outbox rows a failed delivery left behind when the instance is next loaded', async () => {
    const { engine, instances, delivery } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    // A retryable failure is thrown (the caller retries); the change itself is saved.
    delivery.failWith = new StorageError('operations table busy', 503, true);
    await expect(engine.applyTrigger('i1', go('t1'))).rejects.toThrow('operations table busy');
    expect(await instances.get('i1')).toMatchObject({ stateId: 'b', outbox: [await raised(engine, 'i1', 't.t1')] });
    expect((await instances.listOutbox('i1')).map((row) => row.id)).toEqual([await raised(engine, 'i1', 't.t1')]);
    delivery.failWith = undefined;
    // The retry of the same trigger is a duplicate, and the load hands the leftover row to the relay.
    expect((await engine.applyTrigger('i1', go('t1'))).outcome).toBe('duplicate');
    expect(delivery.delivered.map((item) => item.id)).toEqual([await raised(engine, 'i1', 't.t1')]);
    expect(await instances.listOutbox('i1')).toEqual([]);
  });

  it('relays leftover rows of every instance at start-up (the sweep)', async () => {
    const { engine, instances, delivery, logger } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i2' });
    // A failure retrying cannot fix is logged, not thrown: the change is saved and reported as it is.
    delivery.failWith = new Error('delivery down');
    expect((await engine.applyTrigger('i1', go('t1'))).outcome).toBe('transitioned');
    expect((await engine.applyTrigger('i2', go('t2', 'Go', ['i2']))).outcome).toBe('transitioned');
    expect(logger.lines.filter((line) => line.message.startsWith('Could not deliver outbox rows'))).toHaveLength(2);
    delivery.failWith = undefined;
    expect(await engine.relayLeftovers()).toBe(2);
    expect(delivery.delivered.map((item) => item.id)).toEqual([await raised(engine, 'i1', 't.t1'), await raised(engine, 'i2', 't.t2')]);
    expect((await onePage(instances.listAllOutbox())).items).toEqual([]);
    expect(await engine.relayLeftovers()).toBe(0);
  });

  it('adds new subjects to the index before the save and removes stale ones after', async () => {
    const { engine, instances, interests } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1', context: { owner: 'ann' } });
    const seenAtSave: string[][] = [];
    instances.beforeSave = (instance) => {
      if (instance.stateId === 'b' && instance.outbox.length) seenAtSave.push(interests.subjectsOf('i1'));
    };
    await engine.applyTrigger('i1', go('t1'));
    expect(seenAtSave[0]).toEqual(expect.arrayContaining(['owner:ann', 'Go', 'b-watchers', 'Finish']));
    expect(interests.subjectsOf('i1')).not.toContain('owner:ann');
  });

  it('serialises concurrent triggers to one instance under its lease', async () => {
    const { engine } = await withFlow();
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    const results = await Promise.all([engine.applyTrigger('i1', go('t1')), engine.applyTrigger('i1', go('t2', 'Finish')), engine.applyTrigger('i1', go('t3'))]);
    expect(results.map((result) => result.outcome)).toEqual(['transitioned', 'transitioned', 'notActive']);
    expect((await engine.getHistory('i1')).items).toHaveLength(3);
  });

  it('without a host delivery, relays raised triggers in-process after the lease is released', async () => {
    const { engine } = testEngine({ inProcess: true });
    await engine.createWorkflow({
      id: 'ping',
      displayName: 'ping',
      initialStateId: 'idle',
      states: {
        idle: {
          transitions: [
            {
              id: 'start',
              targetStateId: 'pinged',
              conditions: [{ type: 'triggerName', name: 'Start' }],
              actions: [{ type: 'raiseTrigger', trigger: { name: 'Ping', subjects: ['{{instance.id}}', 'listeners'] } }],
            },
          ],
        },
        pinged: { transitions: [{ id: 'pong', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Ping' }] }] },
        done: {},
      },
    });
    await engine.createWorkflow({
      id: 'listener',
      displayName: 'listener',
      initialStateId: 'listening',
      states: { listening: { interests: ['listeners'], transitions: [{ id: 'heard', targetStateId: 'heard', conditions: [{ type: 'triggerName', name: 'Ping' }] }] }, heard: {} },
    });
    await engine.createInstance({ workflowId: 'ping', instanceId: 'p1' });
    await engine.createInstance({ workflowId: 'listener', instanceId: 'l1' });
    await engine.applyTrigger('p1', { id: 's1', name: 'Start', subjects: ['p1'] });
    expect((await engine.getInstance('p1')).stateId).toBe('done');
    expect((await engine.getInstance('l1')).stateId).toBe('heard');
  });
});
