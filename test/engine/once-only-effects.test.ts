/**
 * Effects that must not repeat (issue 10, section 1): a decision re-made after a concurrent write (412)
 * or a lost lease logs once and POSTs an external action once. On the engine before issue 10 the log
 * line came out twice and the action was called twice.
 */
import { LeaseLostError, type WorkflowDefinitionInput } from '../../src/engine';
import { localHttp } from '../outbound/support';
import { json, startServer, testEngine } from './support';

function flow(actions: object[]): WorkflowDefinitionInput {
  return {
    id: 'flow',
    displayName: 'Flow',
    initialStateId: 'a',
    states: { a: { transitions: [{ id: 'go', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Go' }], actions: actions as never }] }, b: {} },
  };
}

/** Makes the next save of a change into `b` lose a race: another writer saves first (a 412 for us). */
function interfereOnce(instances: ReturnType<typeof testEngine>['instances']): () => number {
  let interfered = 0;
  instances.beforeSave = async (instance) => {
    if (interfered || instance.stateId !== 'b') return;
    interfered++;
    const { etag, ...plain } = (await instances.get(instance.id))!;
    await instances.save({ ...plain, context: { ...plain.context, sneaky: true } }, {}, { ifMatch: etag });
  };
  return () => interfered;
}

describe('effects that must not repeat', () => {
  it('a log action logs once when the decision is re-made after a concurrent write, and only after the save', async () => {
    const { engine, instances, logger } = testEngine();
    await engine.createWorkflow(flow([{ type: 'log', message: 'moving {{instance.id}}' }]));
    await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
    const interfered = interfereOnce(instances);
    const linesAtSave: number[] = [];
    const before = instances.beforeSave!;
    instances.beforeSave = async (instance) => {
      linesAtSave.push(logger.lines.filter((line) => line.message === 'moving i1').length);
      await before(instance);
    };
    expect((await engine.applyTrigger('i1', { id: 't1', name: 'Go', subjects: ['i1'] })).outcome).toBe('transitioned');
    expect(interfered()).toBe(1);
    expect(logger.lines.filter((line) => line.message === 'moving i1')).toEqual([
      { level: 'info', message: 'moving i1', properties: { instanceId: 'i1', workflowId: 'flow', stateId: 'a', triggerId: 't1' } },
    ]);
    // Every save (ours, the interfering one, our retry) happened before anything was logged.
    expect(linesAtSave.length).toBeGreaterThanOrEqual(2);
    expect(linesAtSave.every((count) => count === 0)).toBe(true);
    expect(await engine.getInstance('i1')).toMatchObject({ stateId: 'b', context: { sneaky: true } });
  });

  it('an invokeExternalService action POSTs once when the decision is re-made after a concurrent write', async () => {
    const server = await startServer((_request, response) => json(response, 200, { contextValuesToSetOrAdd: { approved: true } }));
    try {
      const { engine, instances } = testEngine({ http: await localHttp() });
      await engine.createWorkflow(flow([{ type: 'invokeExternalService', url: `${server.url}/approve` }]));
      await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
      const interfered = interfereOnce(instances);
      expect((await engine.applyTrigger('i1', { id: 't1', name: 'Go', subjects: ['i1'] })).outcome).toBe('transitioned');
      expect(interfered()).toBe(1);
      expect(server.requests).toHaveLength(1);
      expect(await engine.getInstance('i1')).toMatchObject({ stateId: 'b', context: { approved: true, sneaky: true } });
    } finally {
      await server.close();
    }
  });

  it('a delivery retried after a lost lease replays the recorded response instead of POSTing again', async () => {
    const server = await startServer((_request, response) => json(response, 200, { contextValuesToSetOrAdd: { approved: true } }));
    try {
      const { engine, instances, interests, leases } = testEngine({ http: await localHttp() });
      const definition = flow([{ type: 'invokeExternalService', url: `${server.url}/approve` }]);
      // `b` adds an interest, so the index is written between deciding and saving: the lease breaks there.
      await engine.createWorkflow({ ...definition, states: { ...definition.states, b: { interests: ['b-watchers'] } } });
      await engine.createInstance({ workflowId: 'flow', instanceId: 'i1' });
      const add = interests.add.bind(interests);
      let breakOnce = true;
      interests.add = async (id, subjects, options) => {
        if (breakOnce) {
          breakOnce = false;
          leases.break('i1'); // lost between deciding and saving
        }
        return add(id, subjects, options);
      };
      const trigger = { id: 't1', name: 'Go', subjects: ['i1'] };
      const writes = instances.writes;
      await expect(engine.applyTrigger('i1', trigger)).rejects.toBeInstanceOf(LeaseLostError);
      expect(instances.writes).toBe(writes);
      expect(server.requests).toHaveLength(1);
      expect((await engine.applyTrigger('i1', trigger)).outcome).toBe('transitioned');
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
