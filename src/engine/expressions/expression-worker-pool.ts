/**
 * @module A small pool of worker threads for expressions that cannot be bounded in-process (see
 * expression-isolation.ts). Each worker has a heap limit (`resourceLimits`) and is terminated when an
 * evaluation runs past the deadline, so a recursive function, a catastrophic regex or a 50M-character
 * `$pad` faults that instance instead of exhausting the process's heap or blocking its event loop. The
 * workers are created on first use, unreferenced (they never keep a process alive), and replaced after a
 * termination. Node's worker_threads is the one Node module the engine uses: it is isolation, not I/O.
 */
import { Worker } from 'node:worker_threads';
import { foreignErrorCode } from '../model/errors';
import type { JsonValue } from '../model/json';
import { EXPRESSION_DEADLINE_IN_MS, EXPRESSION_MEMORY_LIMIT_IN_MB, ExpressionLimitError, MAX_EXPRESSION_DEPTH, MAX_EXPRESSION_SEQUENCE, MAX_EXPRESSION_STRING_LENGTH } from './expression-limits';

/** Workers in the pool; the machines this runs on have few cores, and most expressions never come here. */
const POOL_SIZE = 2;
/**
 * Characters of source whose compiled programs one worker keeps: about 16 MB of ASTs at 36 bytes a
 * character, a quarter of the worker's heap, so the cache never starves an evaluation of memory.
 */
const WORKER_CACHE_CHARACTERS = Math.floor((EXPRESSION_MEMORY_LIMIT_IN_MB * 1024 * 1024) / 4 / 36);
/**
 * JSONata's own guardrail stops a stepping loop at the deadline with a clear message; the termination
 * timer is the backstop for one step that never returns (a regex, a huge `$pad`), a little later.
 */
const TERMINATION_GRACE_IN_MS = 250;

// Plain CommonJS run with `eval: true`, so it needs no build step under tsx, jest or the compiled dist/.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const jsonata = require(workerData.jsonataPath);
const limits = workerData.limits;
const programs = new Map();
let cachedCharacters = 0;
let fromMillis;
function limitError(message) { return { code: 'SIGNALBOX_LIMIT', message }; }
function compile(source) {
  let program = programs.get(source);
  if (program) return program;
  // Bounded by size, not count: ASTs take about 36 bytes a character of source (expressions.ts), and
  // the worker's heap is small, so a count bound let a few hundred large programs run it out of memory.
  if (cachedCharacters + source.length > limits.cacheCharacters) {
    programs.clear();
    cachedCharacters = 0;
  }
  program = jsonata(source, { timeout: limits.deadlineInMs, stack: limits.maxDepth, sequence: limits.maxSequence });
  program.assign(Symbol.for('jsonata.__evaluate_exit'), (expr, input, environment, result) => {
    if (typeof result === 'string' && result.length > limits.maxStringLength) {
      throw limitError('the expression built a string of ' + result.length + ' characters; at most ' + limits.maxStringLength + ' are allowed');
    }
  });
  if (source.length <= limits.cacheCharacters) {
    programs.set(source, program);
    cachedCharacters += source.length;
  }
  return program;
}
function clockBindings(millis) {
  const iso = new Date(millis).toISOString();
  return {
    millis: () => millis,
    now: (picture, timezone) => {
      if (picture === undefined && timezone === undefined) return iso;
      fromMillis = fromMillis || jsonata('$fromMillis($m, $p, $t)');
      return fromMillis.evaluate({}, { m: millis, p: picture, t: timezone });
    },
  };
}
parentPort.on('message', async ({ id, source, scope, millis }) => {
  try {
    const result = await compile(source).evaluate(scope, millis === undefined ? undefined : clockBindings(millis));
    if (typeof result === 'number' && !Number.isFinite(result)) throw new Error('the expression yielded ' + result + ', which is not JSON');
    const json = result === undefined || typeof result === 'function' ? undefined : JSON.stringify(result);
    if (json !== undefined && json.length > limits.maxStringLength) {
      throw limitError('the expression yielded ' + json.length + ' characters of JSON; at most ' + limits.maxStringLength + ' are allowed');
    }
    parentPort.postMessage({ id, json });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: (error && error.message) || String(error), code: error && error.code } });
  }
});
`;

interface Job {
  readonly source: string;
  readonly scope: unknown;
  readonly millis: number | undefined;
  resolve(value: JsonValue | undefined): void;
  reject(error: unknown): void;
}

interface Slot {
  readonly worker: Worker;
  job?: Job;
  jobId: number;
  timer?: NodeJS.Timeout;
}

interface WorkerReply {
  readonly id: number;
  readonly json?: string;
  readonly error?: { message: string; code?: string };
}

/** The codes JSONata's guardrails throw, and the worker's own size limit, as ExpressionLimitErrors. */
function replyError(error: { message: string; code?: string }): Error {
  switch (error.code) {
    case 'D1011':
      return new ExpressionLimitError(`the expression nests deeper than ${MAX_EXPRESSION_DEPTH} steps (unbounded recursion?)`);
    case 'D1012':
      return new ExpressionLimitError(`the expression ran past its deadline of ${EXPRESSION_DEADLINE_IN_MS} ms`);
    case 'D2015':
      return new ExpressionLimitError(`the expression built a sequence of more than ${MAX_EXPRESSION_SEQUENCE} items`);
    case 'SIGNALBOX_LIMIT':
      return new ExpressionLimitError(error.message);
    default:
      return Object.assign(new Error(error.message), error.code ? { code: error.code } : {});
  }
}

export class ExpressionWorkerPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextJobId = 1;

  constructor(private readonly size = POOL_SIZE) {}

  /** Evaluates `source` against `scope` in a worker; `millis` is the engine clock for $now()/$millis(). */
  evaluate(source: string, scope: unknown, millis: number | undefined): Promise<JsonValue | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ source, scope, millis, resolve, reject });
      this.pump();
    });
  }

  /** Terminates every worker (tests; a process exits without it, the workers being unreferenced). */
  async close(): Promise<void> {
    const workers = [...this.slots].map((slot) => slot.worker);
    this.slots.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = [...this.slots].find((candidate) => !candidate.job);
      if (!slot && this.slots.size < this.size) slot = this.spawn();
      if (!slot) return;
      this.assign(slot, this.queue.shift()!);
    }
  }

  private assign(slot: Slot, job: Job): void {
    slot.job = job;
    slot.jobId = this.nextJobId++;
    slot.timer = setTimeout(
      () => this.fail(slot, new ExpressionLimitError(`the expression ran past its deadline of ${EXPRESSION_DEADLINE_IN_MS} ms`)),
      EXPRESSION_DEADLINE_IN_MS + TERMINATION_GRACE_IN_MS,
    );
    try {
      slot.worker.postMessage({ id: slot.jobId, source: job.source, scope: job.scope, millis: job.millis });
    } catch (error) {
      this.finish(slot);
      job.reject(error);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: {
        jsonataPath: require.resolve('jsonata'),
        limits: {
          deadlineInMs: EXPRESSION_DEADLINE_IN_MS,
          maxDepth: MAX_EXPRESSION_DEPTH,
          maxSequence: MAX_EXPRESSION_SEQUENCE,
          maxStringLength: MAX_EXPRESSION_STRING_LENGTH,
          cacheCharacters: WORKER_CACHE_CHARACTERS,
        },
      },
      resourceLimits: { maxOldGenerationSizeMb: EXPRESSION_MEMORY_LIMIT_IN_MB, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
    const slot: Slot = { worker, jobId: 0 };
    worker.on('message', (reply: WorkerReply) => {
      const job = slot.job;
      if (!job || reply.id !== slot.jobId) return;
      this.finish(slot);
      if (reply.error) job.reject(replyError(reply.error));
      else job.resolve(reply.json === undefined ? undefined : (JSON.parse(reply.json) as JsonValue));
      this.pump();
    });
    worker.on('error', (error: Error) => {
      const limit = foreignErrorCode(error) === 'ERR_WORKER_OUT_OF_MEMORY' ? new ExpressionLimitError(`the expression exceeded the memory limit of ${EXPRESSION_MEMORY_LIMIT_IN_MB} MB`) : error;
      this.fail(slot, limit);
    });
    worker.on('exit', () => this.fail(slot, new Error('the expression worker stopped')));
    // After the listeners: adding a 'message' listener refs the worker's port again, and a referenced idle
    // worker kept the process alive after its work was done. A job in flight keeps it alive by its
    // deadline timer instead.
    worker.unref();
    this.slots.add(slot);
    return slot;
  }

  private finish(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
  }

  /** Ends the slot's job with `error`, discards the worker (it may be stuck or out of memory), refills. */
  private fail(slot: Slot, error: Error): void {
    if (!this.slots.delete(slot)) return;
    const job = slot.job;
    this.finish(slot);
    void slot.worker.terminate();
    job?.reject(error);
    this.pump();
  }
}
