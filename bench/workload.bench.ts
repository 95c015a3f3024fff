/**
 * `npm run bench:workload`: the expense-claim mix users run, through the local server (a process of its
 * own) on Azurite. Each claim: Update by the instance's route (context only), Update by subject naming its
 * trigger id, Submit (state changes: interest rows and a timer row change), Approve naming its trigger id,
 * every fourth claim rejected and submitted again first, then Pay, whose transition raises ClaimPaid to
 * the claimant's ledger (a follow-up trigger, applied after the answer). Prints, with `uptime`:
 *
 * 1. storage requests per trigger by kind: one claim after another, one client, each trigger counted once
 *    the server has sent nothing for BENCH_QUIET_MS (lease releases and relayed triggers included);
 * 2. one client: p50/p95 from POST to the answer (`Prefer: wait`), server and Azurite CPU per applied
 *    trigger (sent and raised), requests per applied trigger;
 * 3. BENCH_CLIENTS (16) clients, each on claims of its own: triggers/s and the same per-trigger costs.
 *
 * At the end every claim must be paid and every ledger must count its claims, or the bench fails.
 *
 *   BENCH_COUNT_CLAIMS (default 4), BENCH_SINGLE_CLAIMS (default 30), BENCH_CLAIMS_PER_CLIENT (default 10),
 *   BENCH_CLIENTS (default 16), BENCH_PROFILE_DIR (a `--cpu-prof` profile of the server process)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import expenseClaim from '../examples/expense-claim.json';
import { startAzurite } from '../src/host/local/azurite';
import { json, type Json, percentile, runBench } from './support/bench-support';
import { startServerProcess, type ServerProcess } from './support/workload-server-process';

const COUNT_CLAIMS = Number(process.env.BENCH_COUNT_CLAIMS ?? 4);
const SINGLE_CLAIMS = Number(process.env.BENCH_SINGLE_CLAIMS ?? 30);
const CLAIMS_PER_CLIENT = Number(process.env.BENCH_CLAIMS_PER_CLIENT ?? 10);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const LEDGERS = 16;
const WAIT = { prefer: 'wait=30' };

/** CPU time (user + system) a process has used so far, from /proc (Linux; 0 elsewhere). */
function cpuMillisecondsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, 100 ticks a second
  } catch {
    return 0;
  }
}

/** The expense claim, its Pay raising ClaimPaid to the claimant's ledger. */
function claimWorkflow(): Json {
  const definition = structuredClone(expenseClaim) as Json;
  const pay = definition.states['waiting-for-payment'].transitions.find((transition: Json) => transition.id === 'pay');
  pay.actions.push({ type: 'raiseTrigger', trigger: { name: 'ClaimPaid', subjects: ['ledger-{{context.claimantId}}'], parameters: { claimId: '{{instance.id}}' } } });
  return definition;
}

const ledgerWorkflow = {
  id: 'ledger',
  displayName: 'Ledger',
  initialStateId: 'open',
  states: {
    open: {
      transitions: [{ id: 'record', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'ClaimPaid' }], actions: [{ type: 'setContext', expressions: { paid: 'context.paid + 1' } }] }],
    },
  },
};

/** One trigger of the mix: its kind (how requests are reported) and how it is sent. */
interface Step {
  readonly kind: string;
  readonly path: string;
  readonly body: Json;
  /** Applied triggers it causes (a raised one counts too). */
  readonly applied: number;
}

/** The triggers of claim `id` in order; `rejected` claims are sent back once. */
function stepsOf(id: string, rejected: boolean): Step[] {
  const at = '2026-12-03T10:00:00.000Z';
  const route = `/api/instances/${id}/triggers`;
  const submit: Step = { kind: 'Submit (state change, by subject)', path: '/api/triggers', body: { name: 'Submit', subjects: [id], parameters: { at } }, applied: 1 };
  return [
    { kind: 'Update (context only, by route)', path: route, body: { name: 'Update', parameters: { amount: 120, description: 'train' } }, applied: 1 },
    {
      kind: 'Update (context only, by subject, named id)',
      path: '/api/triggers',
      body: { id: `${id}-update`, name: 'Update', subjects: [id], parameters: { amount: 140, description: 'train and taxi' } },
      applied: 1,
    },
    submit,
    ...(rejected ? [{ kind: 'Reject (state change, by route)', path: route, body: { name: 'Reject', parameters: { reason: 'receipt missing' } }, applied: 1 }, submit] : []),
    { kind: 'Approve (state changes twice, named id)', path: '/api/triggers', body: { id: `${id}-approve`, name: 'Approve', subjects: [id], parameters: { by: 'manager' } }, applied: 1 },
    { kind: 'Pay (state change, raises ClaimPaid)', path: route, body: { name: 'Pay', parameters: { at } }, applied: 2 },
  ];
}

interface Claim {
  readonly id: string;
  readonly claimant: number;
  readonly steps: readonly Step[];
}

function claims(prefix: string, count: number, offset = 0): Claim[] {
  return Array.from({ length: count }, (_, index) => ({ id: `${prefix}-${index}`, claimant: (index + offset) % LEDGERS, steps: stepsOf(`${prefix}-${index}`, index % 4 === 3) }));
}

async function send(base: string, step: Step): Promise<void> {
  const answer = await json(`${base}${step.path}`, 'POST', step.body, WAIT);
  if (answer.status !== 200 || answer.body?.status !== 'succeeded' || answer.body?.summary?.transitioned !== 1) {
    throw new Error(`${step.kind} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
}

async function create(base: string, claim: Claim): Promise<void> {
  const answer = await json(`${base}/api/instances`, 'POST', { workflowId: 'expense-claim', instanceId: claim.id, context: { claimantId: `u${claim.claimant}` } });
  if (answer.status !== 201) throw new Error(`creating ${claim.id} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
}

interface Costs {
  readonly applied: number;
  readonly seconds: number;
  readonly serverMs: number;
  readonly azuriteMs: number;
  readonly requests: number;
}

/** Runs `work`, then waits until the server is quiet, and reports what it cost. */
async function measured(server: ServerProcess, azuritePid: number | undefined, applied: number, work: () => Promise<void>): Promise<Costs> {
  const before = await server.settle();
  const azuriteBefore = cpuMillisecondsOf(azuritePid);
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const after = await server.settle();
  return { applied, seconds, serverMs: after.cpuMs - before.cpuMs, azuriteMs: cpuMillisecondsOf(azuritePid) - azuriteBefore, requests: after.counts.total };
}

const fixed = (value: number, digits = 2): string => value.toFixed(digits);

async function main(): Promise<void> {
  const uptime = (): string => execFileSync('uptime', { encoding: 'utf8' }).trim();
  console.log(`start: ${uptime()}`);
  const azurite = await startAzurite();
  const server = await startServerProcess(azurite.connectionString, 'work');
  const base = server.url;
  const allClaims: Claim[] = [];
  try {
    for (const definition of [claimWorkflow(), ledgerWorkflow]) {
      const answer = await json(`${base}/api/workflows/${definition.id}`, 'PUT', definition);
      if (answer.status !== 201 && answer.status !== 200) throw new Error(`workflow ${definition.id}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    for (let ledger = 0; ledger < LEDGERS; ledger += 1) await json(`${base}/api/instances`, 'POST', { workflowId: 'ledger', instanceId: `ledger-u${ledger}`, context: { paid: 0 } });

    // 1. Requests per trigger by kind (the first claim warms the process and is not counted).
    const counted = claims('count', COUNT_CLAIMS + 1);
    allClaims.push(...counted);
    const byKind = new Map<string, { triggers: number; requests: number; kinds: Record<string, number>; listing: readonly string[] }>();
    for (const [index, claim] of counted.entries()) {
      await server.settle();
      await create(base, claim);
      const created = await server.settle();
      const record = (kind: string, settled: typeof created): void => {
        if (index === 0) return;
        const entry = byKind.get(kind) ?? { triggers: 0, requests: 0, kinds: {}, listing: settled.requests };
        entry.triggers += 1;
        entry.requests += settled.counts.total;
        for (const [name, count] of Object.entries(settled.counts.byKind)) entry.kinds[name] = (entry.kinds[name] ?? 0) + count;
        byKind.set(kind, entry);
      };
      record('create (POST /api/instances)', created);
      for (const step of claim.steps) {
        await send(base, step);
        record(step.kind, await server.settle());
      }
    }
    const perKind = [...byKind].map(([kind, entry]) => ({
      kind,
      requests: fixed(entry.requests / entry.triggers),
      byKind: Object.entries(entry.kinds)
        .map(([name, count]) => `${name} ${fixed(count / entry.triggers, 1)}`)
        .join(', '),
    }));

    // 2. One client, one claim after another (created beforehand: only triggers are measured).
    const single = claims('single', SINGLE_CLAIMS);
    allClaims.push(...single);
    for (const claim of single) await create(base, claim);
    const latencies: number[] = [];
    const singleApplied = single.reduce((sum, claim) => sum + claim.steps.reduce((steps, step) => steps + step.applied, 0), 0);
    const singleTriggers = single.reduce((sum, claim) => sum + claim.steps.length, 0);
    const singleCosts = await measured(server, azurite.pid, singleApplied, async () => {
      for (const claim of single) {
        for (const step of claim.steps) {
          const started = performance.now();
          await send(base, step);
          latencies.push(performance.now() - started);
        }
      }
    });
    latencies.sort((a, b) => a - b);

    // 3. CLIENTS clients, each on claims of its own, one trigger at a time each.
    const parallel = Array.from({ length: CLIENTS }, (_, client) => claims(`c${client}`, CLAIMS_PER_CLIENT, client));
    allClaims.push(...parallel.flat());
    await Promise.all(
      parallel.map(async (own) => {
        for (const claim of own) await create(base, claim);
      }),
    );
    const parallelTriggers = parallel.flat().reduce((sum, claim) => sum + claim.steps.length, 0);
    const parallelApplied = parallel.flat().reduce((sum, claim) => sum + claim.steps.reduce((steps, step) => steps + step.applied, 0), 0);
    const parallelCosts = await measured(server, azurite.pid, parallelApplied, async () => {
      await Promise.all(
        parallel.map(async (own) => {
          for (const claim of own) for (const step of claim.steps) await send(base, step);
        }),
      );
    });

    // Every claim paid, every ledger counting its claims.
    const expected = new Map<number, number>();
    for (const claim of allClaims) {
      expected.set(claim.claimant, (expected.get(claim.claimant) ?? 0) + 1);
      const instance = await json(`${base}/api/instances/${claim.id}`);
      if (instance.body?.stateId !== 'paid') throw new Error(`${claim.id} is in ${instance.body?.stateId}, not paid`);
    }
    for (const [claimant, count] of expected) {
      const ledger = await json(`${base}/api/instances/ledger-u${claimant}`);
      if (ledger.body?.context?.paid !== count) throw new Error(`ledger-u${claimant} counted ${ledger.body?.context?.paid} of ${count}`);
    }

    const row = (costs: Costs) => ({
      'requests/applied': fixed(costs.requests / costs.applied),
      'server CPU ms/applied': fixed(costs.serverMs / costs.applied),
      'Azurite CPU ms/applied': fixed(costs.azuriteMs / costs.applied),
      'applied/s': fixed(costs.applied / costs.seconds, 1),
    });
    console.log(`\nstorage requests per trigger, by kind of trigger (${COUNT_CLAIMS} claims, one at a time, each counted once the server is quiet):`);
    console.table(perKind);
    console.log(`\n${singleTriggers} triggers sent (${singleApplied} applied with the raised ones) by 1 client; ${parallelTriggers} (${parallelApplied}) by ${CLIENTS}:`);
    console.table([
      { run: '1 client', ...row(singleCosts), 'triggers/s': fixed(singleTriggers / singleCosts.seconds, 1), 'p50 ms': fixed(percentile(latencies, 50)), 'p95 ms': fixed(percentile(latencies, 95)) },
      { run: `${CLIENTS} clients`, ...row(parallelCosts), 'triggers/s': fixed(parallelTriggers / parallelCosts.seconds, 1), 'p50 ms': '', 'p95 ms': '' },
    ]);
    console.log(`every claim paid, every ledger right; end: ${uptime()}`);
    if (process.env.BENCH_LIST) for (const [kind, entry] of byKind) console.log(`${kind}:\n  ${entry.listing.join('\n  ')}`);
  } finally {
    await server.stop();
    await azurite.stop();
  }
}

runBench(main);
