/**
 * Trigger applications per second, in memory: Signalbox's pure processor and its Engine facade (in-memory
 * ports and lease) on the expense-claim workflow, side by side with XState v5's pure `transition()` on the
 * equivalent machine; then the per-trigger cost with 10 and with 1,000 states (it must not grow).
 * Run: npm run bench:engine. Timings vary with the machine's load; compare rows of one run.
 */
import { assign, createMachine, initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import expenseClaim from '../examples/expense-claim.json';
import {
  Engine,
  builtInRegistry,
  decideTrigger,
  silentLogger,
  validateDefinition,
  type Effects,
  type Instance,
  type Trigger,
  type WorkflowDefinition,
  type WorkflowDefinitionInput,
} from '../src/engine';
import { createInMemoryPorts } from '../src/testing';
import jsonata from 'jsonata';
import { closeExpressionWorkers, evaluateExpression, type ExpressionScope } from '../src/engine';
import { runBench } from './support/bench-support';

const DURATION_IN_MS = Number(process.env.BENCH_MS ?? 1500);

/** Runs `step` repeatedly for the duration (after a warm-up) and returns operations per second. */
async function measure(step: (i: number) => unknown | Promise<unknown>): Promise<number> {
  // One running index across warm-up and measurement: steps follow a cycle and ids must not repeat.
  let i = 0;
  while (i < 2000) await step(i++);
  const first = i;
  const start = performance.now();
  let now = start;
  while (now - start < DURATION_IN_MS) {
    for (let j = 0; j < 200; j++) await step(i++);
    now = performance.now();
  }
  return ((i - first) / (now - start)) * 1000;
}

// The cycle Update → Submit → Reject → Update ... never ends, so one instance takes triggers forever.
const cycle = [
  { name: 'Update', parameters: { amount: 42, description: 'train' } },
  { name: 'Submit', parameters: { at: '2026-01-02' } },
  { name: 'Reject', parameters: { reason: 'receipt' } },
] as const;

const effects: Effects = {
  now: () => new Date(0),
  http: { send: () => Promise.reject(new Error('no HTTP in the benchmark')) },
};
const registry = builtInRegistry();

/** The pure decision, seen as the next instance (or the same one when nothing changed). */
async function processTrigger(definition: WorkflowDefinition, instance: Instance, trigger: Trigger, with_: Effects) {
  const decision = await decideTrigger(definition, instance, trigger, with_, registry);
  return { outcome: decision.result.outcome, instance: decision.change?.instance ?? instance };
}

function startInstance(definition: WorkflowDefinition, stateId: string, context = {}): Instance {
  return {
    id: 'i1',
    workflowId: definition.id,
    workflowVersion: 1,
    stateId,
    status: 'waiting',
    context,
    interests: ['i1'],
    createdAt: '',
    updatedAt: '',
    appliedTriggers: [],
    outbox: [],
    historyLength: 1,
  };
}

async function signalboxProcessor(): Promise<number> {
  const definition = validateDefinition(expenseClaim);
  let instance = startInstance(definition, definition.initialStateId, { claimantId: 'u7' });
  return measure(async (i) => {
    const step = cycle[i % 3]!;
    const trigger: Trigger = { id: `t${i}`, name: step.name, subjects: ['i1'], parameters: step.parameters };
    const result = await processTrigger(definition, instance, trigger, effects);
    if (result.outcome !== 'transitioned') throw new Error(`unexpected ${result.outcome}`);
    instance = result.instance;
  });
}

async function signalboxEngine(): Promise<number> {
  const engine = new Engine(createInMemoryPorts(), { logger: silentLogger });
  await engine.createWorkflow(engine.validateWorkflow(expenseClaim));
  await engine.createInstance({ workflowId: 'expense-claim', instanceId: 'i1', context: { claimantId: 'u7' } });
  return measure(async (i) => {
    const step = cycle[i % 3]!;
    const result = await engine.applyTrigger('i1', { id: `t${i}`, name: step.name, subjects: ['i1'], parameters: step.parameters });
    if (result.outcome !== 'transitioned') throw new Error(`unexpected ${result.outcome}`);
  });
}

type ClaimEvent = { type: string; parameters: Record<string, unknown> };

/** The expense claim as an XState machine: the same transitions, guards and context updates. */
function expenseClaimMachine() {
  return createMachine({
    types: {} as { context: Record<string, unknown>; events: ClaimEvent },
    id: 'expense-claim',
    initial: 'waitingForSubmission',
    context: { claimantId: 'u7' },
    states: {
      waitingForSubmission: {
        on: {
          Update: {
            target: 'waitingForSubmission',
            reenter: true,
            actions: assign(({ context, event }) => ({ ...context, amount: event.parameters.amount, description: event.parameters.description })),
          },
          Submit: {
            target: 'waitingForApproval',
            guard: ({ context }) => typeof context.amount === 'number' && context.amount > 0,
            actions: assign(({ context, event }) => ({ ...context, submittedAt: event.parameters.at })),
          },
          Abandon: 'abandoned',
        },
      },
      waitingForApproval: {
        on: {
          Approve: { target: 'waitingForPayment', actions: assign(({ context, event }) => ({ ...context, approvedBy: event.parameters.by })) },
          Reject: {
            target: 'waitingForSubmission',
            actions: assign(({ context, event }) => {
              const { submittedAt: _removed, ...rest } = context;
              return { ...rest, rejectionReason: event.parameters.reason };
            }),
          },
        },
      },
      waitingForPayment: { on: { Pay: { target: 'paid', actions: assign(({ context, event }) => ({ ...context, paidAt: event.parameters.at })) } } },
      paid: { type: 'final' },
      abandoned: { type: 'final' },
    },
  });
}

async function xstateTransition(): Promise<number> {
  const machine = expenseClaimMachine();
  let [snapshot] = initialTransition(machine) as [AnyMachineSnapshot, unknown];
  return measure((i) => {
    const step = cycle[i % 3]!;
    [snapshot] = transition(machine, snapshot, { type: step.name, parameters: step.parameters }) as [AnyMachineSnapshot, unknown];
  });
}

/** A ring of `count` states: each moves to the next on "Next"; a few decoy transitions per state. */
function ring(count: number): WorkflowDefinitionInput {
  const states: Record<string, NonNullable<WorkflowDefinitionInput['states'][string]>> = {};
  for (let i = 0; i < count; i++) {
    states[`s${i}`] = {
      transitions: [
        { id: 'decoy', targetStateId: `s${(i + 2) % count}`, conditions: [{ type: 'triggerName', name: 'Skip' }] },
        { id: 'next', targetStateId: `s${(i + 1) % count}`, conditions: [{ type: 'triggerName', name: 'Next' }], actions: [{ type: 'setContext', expressions: { last: 'trigger.parameters.n' } }] },
      ],
    };
  }
  return { id: `ring-${count}`, displayName: 'ring', initialStateId: 's0', states };
}

async function signalboxRing(count: number): Promise<number> {
  const definition = validateDefinition(ring(count));
  let instance = startInstance(definition, 's0');
  return measure(async (i) => {
    const result = await processTrigger(definition, instance, { id: `t${i}`, name: 'Next', subjects: ['i1'], parameters: { n: i } }, effects);
    instance = result.instance;
  });
}

async function xstateRing(count: number): Promise<number> {
  const states: Record<string, object> = {};
  for (let i = 0; i < count; i++) {
    states[`s${i}`] = {
      on: {
        Skip: `s${(i + 2) % count}`,
        Next: { target: `s${(i + 1) % count}`, actions: assign(({ event }: { event: { type: string; n: number } }) => ({ last: event.n })) },
      },
    };
  }
  const machine = createMachine({ id: `ring-${count}`, initial: 's0', context: {}, states } as never);
  let [snapshot] = initialTransition(machine) as [AnyMachineSnapshot, unknown];
  return measure((i) => {
    [snapshot] = transition(machine, snapshot, { type: 'Next', n: i } as never) as [AnyMachineSnapshot, unknown];
  });
}

function format(value: number): string {
  return Math.round(value).toLocaleString('en-US').padStart(11);
}

async function main(): Promise<void> {
  console.log(`Trigger applications per second (in memory, ${DURATION_IN_MS} ms per row, Node ${process.version})\n`);
  const processor = await signalboxProcessor();
  const facade = await signalboxEngine();
  const xstate = await xstateTransition();
  console.log('expense claim (Update → Submit → Reject, repeated)   ops/s   vs XState');
  console.log(`  Signalbox decideTrigger (pure)               ${format(processor)}   ${(processor / xstate).toFixed(2)}x`);
  console.log(`  Signalbox Engine.applyTrigger (in-memory)    ${format(facade)}   ${(facade / xstate).toFixed(2)}x`);
  console.log(`  XState v5 transition() (pure)                ${format(xstate)}   1.00x`);

  // Interleaved and best of two, so that warm-up and garbage collection do not favour either size.
  const rows: [string, number, number][] = [
    ['10 states', 0, 0],
    ['1000 states', 0, 0],
  ];
  for (let round = 0; round < 2; round++) {
    for (const row of rows) {
      const count = Number.parseInt(row[0], 10);
      row[1] = Math.max(row[1], await signalboxRing(count));
      row[2] = Math.max(row[2], await xstateRing(count));
    }
  }
  console.log('\nring of N states ("Next", one setContext)   Signalbox ops/s   XState ops/s');
  for (const [label, ours, theirs] of rows) console.log(`  ${label.padEnd(40)} ${format(ours)}   ${format(theirs)}`);
  const [small, large] = rows;
  console.log(`  cost per trigger, 1,000 vs 10 states: Signalbox ${(small![1] / large![1]).toFixed(2)}x, XState ${(small![2] / large![2]).toFixed(2)}x`);

  await boundedEvaluation();
}

const expressionScope: ExpressionScope = {
  trigger: { id: 't', name: 'Submit', subjects: ['i1'], parameters: { amount: 42, lines: [{ v: 1 }, { v: 2 }, { v: 3 }] } },
  context: { claimantId: 'u7', amount: 42, names: ['ann', 'bob', 'cy'] },
  instance: { id: 'i1', workflowId: 'w', stateId: 'a', status: 'waiting' },
};

/**
 * The cost of one bounded evaluation (issue 9): plain paths (answered without JSONata), in-process JSONata
 * under its guardrails and the build budget, beside unbounded JSONata on the same expression, and the
 * worker pool for expressions that can loop or blow up (functions, regexes, string builders). Sequential,
 * so the worker row is the round trip of one evaluation, not the pool's throughput.
 */
async function boundedEvaluation(): Promise<void> {
  const rows: [string, string, 'bounded' | 'unbounded'][] = [
    ['plain path (no JSONata)', 'trigger.parameters.amount', 'bounded'],
    ['in-process JSONata, bounded', 'context.amount > 0 and $count(trigger.parameters.lines[v > 1]) = 2', 'bounded'],
    ['  same, unbounded JSONata', 'context.amount > 0 and $count(trigger.parameters.lines[v > 1]) = 2', 'unbounded'],
    ['worker pool ($join)', '$join(context.names, ",")', 'bounded'],
    ['  same, unbounded JSONata', '$join(context.names, ",")', 'unbounded'],
    ['worker pool (function)', '($f := function($n){ $n <= 1 ? 1 : $n * $f($n - 1) }; $f(10))', 'bounded'],
    ['  same, unbounded JSONata', '($f := function($n){ $n <= 1 ? 1 : $n * $f($n - 1) }; $f(10))', 'unbounded'],
  ];
  console.log('\nexpression evaluation (sequential)                       µs per evaluation');
  for (const [label, source, mode] of rows) {
    const unbounded = jsonata(source);
    const perSecond = await measure(() => (mode === 'bounded' ? evaluateExpression(source, expressionScope) : unbounded.evaluate(expressionScope)));
    console.log(`  ${label.padEnd(40)} ${(1e6 / perSecond).toFixed(1).padStart(16)}`);
  }
  await closeExpressionWorkers();
}

runBench(main);
