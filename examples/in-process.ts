/**
 * Signalbox as a library, in one process: the engine with in-memory ports, a custom condition type,
 * and the expense-claim workflow from examples/expense-claim.json. Run it with `npx tsx examples/in-process.ts`.
 * (For durable storage, use createAzureStorage from src/storage instead of the in-memory ports.)
 */
import { z } from 'zod';
import expenseClaim from './expense-claim.json';
import { Engine, createRegistry, defineCondition, stepBaseShape } from '../src/engine';
import { createInMemoryPorts } from '../src/testing';

/** A custom condition: true when the trigger's `amount` parameter is at most `limit`. */
const withinLimit = defineCondition({
  type: 'withinLimit',
  schema: z.strictObject({ type: z.literal('withinLimit'), ...stepBaseShape, limit: z.number().positive() }),
  evaluate: (config, { scope }) => Number(scope.trigger?.parameters?.amount ?? Infinity) <= config.limit,
});

export async function runExpenseClaim(): Promise<{ stateId: string; status: string; context: Record<string, unknown> }> {
  const engine = new Engine(createInMemoryPorts(), { registry: createRegistry({ conditions: [withinLimit] }) });

  // The custom type is validated like the built-ins: an Update above the limit does not match.
  const definition = structuredClone(expenseClaim) as { states: Record<string, { transitions?: { id: string; conditions?: unknown[] }[] }> };
  definition.states['waiting-for-submission']!.transitions!.find((transition) => transition.id === 'update')!.conditions!.push({ type: 'withinLimit', limit: 1000 });
  // JSON read from a file is untyped: parse it (every problem listed), then store the typed definition.
  await engine.createWorkflow(engine.validateWorkflow(definition));

  await engine.createInstance({ workflowId: 'expense-claim', instanceId: 'claim-1', context: { claimantId: 'ann' } });
  const send = (id: string, name: string, subjects: string[], parameters = {}) => engine.publish({ id, name, subjects, parameters });
  await send('t1', 'Update', ['claimant:ann'], { amount: 5000, description: 'Too much' }); // noTransition: over the limit
  await send('t2', 'Update', ['claimant:ann'], { amount: 120, description: 'Train' });
  await send('t3', 'Submit', ['claim-1'], { at: '2026-11-22' });
  await send('t4', 'Approve', ['approvers'], { by: 'bob' });
  await send('t5', 'Pay', ['finance'], { at: '2026-11-23' });
  const { stateId, status, context } = await engine.getInstance('claim-1');
  return { stateId, status, context };
}

if (require.main === module) {
  runExpenseClaim().then((result) => console.log(JSON.stringify(result, null, 2)));
}
