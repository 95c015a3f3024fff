/**
 * A transition's `actors` rule: every listed part must hold, it is evaluated first and traced (type
 * `actor`), a refusal is `noTransition` (never a fault) and changes nothing, a trigger without an actor is
 * not checked, a `system` actor has no roles; static analysis warns when a rule leaves nobody.
 */
import type { Actor } from '../../src/engine/model';
import { analyzeDefinition } from '../../src/engine/analysis';
import { testEngine } from './support';

const person = (id: string, roles: string[] = [], groups?: string[]): Actor => ({ id, name: id, roles, ...(groups ? { groups } : {}), via: 'token' });

const definition = {
  id: 'guarded',
  displayName: 'Guarded',
  initialStateId: 'open',
  states: {
    open: {
      transitions: [
        {
          id: 'approve',
          targetStateId: 'done',
          actors: { roles: ['Approver'], groups: ['finance'], expression: '$not(actor.id = context.ownerId)' },
          conditions: [{ type: 'triggerName', name: 'Approve' }],
        },
        { id: 'vip', targetStateId: 'done', actors: { users: ['vip'] }, conditions: [{ type: 'triggerName', name: 'Vip' }] },
      ],
    },
    done: {},
  },
};

async function setUp() {
  const env = testEngine();
  await env.engine.createWorkflow(env.engine.validateWorkflow(definition));
  await env.engine.createInstance({ workflowId: 'guarded', instanceId: 'g', context: { ownerId: 'owner' } });
  return env;
}

it.each([
  ['lacks the role', person('x', [], ['finance']), 'has none of the roles Approver'],
  ['is in no listed group', person('x', ['Approver'], ['sales']), 'is in none of the groups'],
  ['fails the expression', person('owner', ['Approver'], ['finance']), '$not(actor.id = context.ownerId) is false'],
  ['is system work', { id: 'system', name: 'Signalbox', roles: [], via: 'system' } as Actor, 'has none of the roles'],
])('refuses an actor who %s: noTransition, traced first, nothing changed', async (_case, actor, reason) => {
  const { engine } = await setUp();
  const result = await engine.applyTrigger('g', { id: 't1', name: 'Approve', subjects: ['g'], actor });
  expect(result.outcome).toBe('noTransition');
  expect(result.trace![0]).toEqual({ path: 'states.open.transitions[0].actors', type: 'actor', result: false, detail: expect.stringContaining(reason) });
  // The refused transition's conditions were not evaluated.
  expect(result.trace!.some((entry) => entry.path.startsWith('states.open.transitions[0].conditions'))).toBe(false);
  expect((await engine.getInstance('g')).stateId).toBe('open');
});

it('lets an actor through when every listed part holds, and records them', async () => {
  const { engine } = await setUp();
  const result = await engine.applyTrigger('g', { id: 't1', name: 'Approve', subjects: ['g'], actor: person('bob', ['Approver'], ['finance']) });
  expect(result).toMatchObject({ outcome: 'transitioned', transitionId: 'approve' });
  expect(result.trace![0]).toMatchObject({ type: 'actor', result: true });
  const history = await engine.getHistory('g');
  expect(history.items.at(-1)!.actor).toMatchObject({ id: 'bob' });
});

it('checks users, and the user a caller acts on behalf of', async () => {
  const { engine } = await setUp();
  const service: Actor = { ...person('service'), onBehalfOf: { id: 'vip' } };
  expect((await engine.applyTrigger('g', { id: 't1', name: 'Vip', subjects: ['g'], actor: person('someone') })).outcome).toBe('noTransition');
  expect((await engine.applyTrigger('g', { id: 't2', name: 'Vip', subjects: ['g'], actor: service })).outcome).toBe('transitioned');
});

it('does not check a trigger without an actor (the engine used as a library)', async () => {
  const { engine } = await setUp();
  expect((await engine.applyTrigger('g', { id: 't1', name: 'Vip', subjects: ['g'] })).outcome).toBe('transitioned');
});

it('refuses, not faults, when the expression fails', async () => {
  const env = testEngine();
  const broken = { ...definition, states: { ...definition.states, open: { transitions: [{ id: 'go', targetStateId: 'done', actors: { expression: '$error("no")' } }] } } };
  await env.engine.createWorkflow(env.engine.validateWorkflow(broken));
  await env.engine.createInstance({ workflowId: 'guarded', instanceId: 'b', context: {} });
  const result = await env.engine.applyTrigger('b', { id: 't1', name: 'Go', subjects: ['b'], actor: person('x') });
  expect(result.outcome).toBe('noTransition');
  expect((await env.engine.getInstance('b')).status).toBe('waiting');
});

it('warns about a transition no actor can take, and refuses a rule with a bad expression', () => {
  const nobody = { ...definition, states: { ...definition.states, open: { transitions: [{ id: 'never', targetStateId: 'done', actors: { roles: [] } }] } } };
  expect(analyzeDefinition(testEngine().engine.validateWorkflow(nobody))).toContainEqual(expect.objectContaining({ code: 'noActorCanTake', path: 'states.open.transitions[0].actors.roles' }));
  const bad = { ...definition, states: { ...definition.states, open: { transitions: [{ id: 'x', targetStateId: 'done', actors: { expression: 'actor.(' } }] } } };
  expect(() => testEngine().engine.validateWorkflow(bad)).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: 'states.open.transitions[0].actors.expression' })] }));
});
