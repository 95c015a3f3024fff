import { z } from 'zod';
import { ValidationError, createRegistry, defineAction } from '../../src/engine';
import { pageOf } from '../../src/testing';
import { testEngine } from './support';

describe('in-memory ports', () => {
  it('pages with an opaque token and rejects a token it did not issue', () => {
    const items = Array.from({ length: 5 }, (_, index) => index);
    const first = pageOf(items, { maxPageSize: 2 });
    expect(first.items).toEqual([0, 1]);
    const second = pageOf(items, { maxPageSize: 2, continuationToken: first.continuationToken! });
    const third = pageOf(items, { maxPageSize: 2, continuationToken: second.continuationToken! });
    expect([second.items, third.items, third.continuationToken]).toEqual([[2, 3], [4], undefined]);
    expect(() => pageOf(items, { continuationToken: 'garbage!' })).toThrow(ValidationError);
  });

  it('the instance store refuses out-of-sequence history (it would corrupt the history)', async () => {
    const { engine, instances } = testEngine();
    await engine.createWorkflow({ id: 'w', displayName: 'w', initialStateId: 'a', states: { a: { transitions: [{ id: 't', targetStateId: 'a' }] } } });
    const stored = await engine.createInstance({ workflowId: 'w', instanceId: 'i1' });
    const { etag, ...plain } = stored;
    const entry = { sequence: 5, at: '', event: 'transitioned' as const, triggerId: null, transitionId: null, fromStateId: null, toStateId: 'a', status: 'waiting' as const };
    await expect(instances.save(plain, { history: [entry] }, { ifMatch: etag })).rejects.toThrow('out of sequence');
  });
});

describe('custom types through the Engine', () => {
  it('a registered action runs with the typed config its schema produced', async () => {
    const stamps: string[] = [];
    const stamp = defineAction({
      type: 'stamp',
      schema: z.strictObject({ type: z.literal('stamp'), id: z.string().optional(), label: z.string().default('stamped') }),
      execute: (config, context) => {
        stamps.push(`${config.label}:${context.scope.instance.id}`);
        context.updateContext({ [config.label]: true });
      },
    });
    const { engine } = testEngine({ registry: createRegistry({ actions: [stamp] }) });
    await engine.createWorkflow({ id: 'w', displayName: 'w', initialStateId: 'a', states: { a: { entryActions: [{ type: 'stamp' }, { type: 'stamp', label: 'again' }] } } });
    const instance = await engine.createInstance({ workflowId: 'w', instanceId: 'i1' });
    expect(instance).toMatchObject({ status: 'complete', context: { stamped: true, again: true } });
    expect(stamps).toEqual(['stamped:i1', 'again:i1']);
    const plain = testEngine();
    await expect(plain.engine.createWorkflow({ id: 'w', displayName: 'w', initialStateId: 'a', states: { a: { entryActions: [{ type: 'stamp' }] } } })).rejects.toMatchObject({
      issues: [{ path: 'states.a.entryActions[0].type' }],
    });
  });
});
