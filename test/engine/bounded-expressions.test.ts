/**
 * Issue 9, item 1: hostile expressions (recursion, catastrophic regexes, huge strings and ranges) fault
 * the instance with a clear error; they neither exhaust the process's heap nor block its event loop.
 * Issue 9, item 2: only evaluated (stored) expressions are cached, and the cache is bounded in bytes.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { EXPRESSION_CACHE_BUDGET_IN_BYTES, ExpressionLimitError, closeExpressionWorkers, evaluateExpression, expressionCacheStats, validateDefinition, type ExpressionScope } from '../../src/engine';
import { MAX_INTERESTS_PER_INSTANCE, MAX_INTERESTS_PER_STATE } from '../../src/engine/decide';
import { testEngine } from './support';

const scope: ExpressionScope = {
  trigger: null,
  context: { name: 'ann', list: [1, 2, 3] },
  instance: { id: 'i1', workflowId: 'w', stateId: 'a', status: 'waiting' },
};

afterAll(() => closeExpressionWorkers());

describe('bounded expression evaluation', () => {
  // Which limit stops it first depends on the machine's speed (and load); either is a clear fault.
  const recursionStopped = /the expression (nests deeper than 2000 steps \(unbounded recursion\?\)|ran past its deadline of 1000 ms)/;

  it('stops non-tail recursion at the depth limit (or the deadline) instead of exhausting the heap', async () => {
    const evaluation = evaluateExpression('($f := function($x){ 1 + $f($x) }; $f(1))', scope);
    await expect(evaluation).rejects.toThrow(ExpressionLimitError);
    await expect(evaluation).rejects.toThrow(recursionStopped);
  });

  it('stops infinite tail recursion at the deadline', async () => {
    await expect(evaluateExpression('($f := function($x){ $f($x) }; $f(1))', scope)).rejects.toThrow(/ran past its deadline of 1000 ms/);
  });

  it('terminates a catastrophic regex at the deadline, and the event loop keeps running meanwhile', async () => {
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 20);
    try {
      const evaluation = evaluateExpression(`$match('${'a'.repeat(40)}!', /^(a+)+$/)`, scope);
      await expect(evaluation).rejects.toThrow(/ran past its deadline of 1000 ms/);
    } finally {
      clearInterval(ticker);
    }
    // In-process, the regex would have held the thread for minutes and no tick would have run.
    expect(ticks).toBeGreaterThan(0);
  });

  it('refuses to build a 50M-character string with $pad', async () => {
    // The size check usually stops it; if building the string alone fills the worker's heap, the memory limit does.
    await expect(evaluateExpression(`$pad('x', 50000000)`, scope)).rejects.toThrow(/built a string of 50000000 characters; at most 1000000|exceeded the memory limit of 64 MB/);
  });

  it('refuses huge ranges and sequences', async () => {
    await expect(evaluateExpression('$count([1..10000000])', scope)).rejects.toThrow(ExpressionLimitError);
  });

  it('bounds what an isolated evaluation may allocate (memory limit or deadline, never the process)', async () => {
    // 10,000 strings of 100,000 characters each: about 2 GB if nothing stopped it.
    const hog = '$count([1..10000].($pad("", 100000, "x") & $string($)))';
    await expect(evaluateExpression(hog, scope)).rejects.toThrow(ExpressionLimitError);
    // 10,000 × 10,000 numbers serialised: usually the 64 MB heap limit, on a slow machine the deadline.
    await expect(evaluateExpression('$string([1..9999].[1..9999])', scope)).rejects.toThrow(/exceeded the memory limit of 64 MB|ran past its deadline/);
    // The pool replaced the terminated workers.
    expect(await evaluateExpression('$join(["still", "here"], " ")', scope)).toBe('still here');
  });

  it('bounds what an in-process evaluation may build (no functions needed)', async () => {
    const big = { ...scope, context: { s: 'x'.repeat(600_000), list: Array.from({ length: 200 }, (_, index) => index) } };
    // Each of 200 items concatenates 1.2M characters: one is over the per-string limit.
    await expect(evaluateExpression('context.list.($$.context.s & $$.context.s)', big)).rejects.toThrow(/built a string of 1200000 characters/);
    // Under the per-string limit, the total built is still bounded (200 × 600,000 > 16M).
    await expect(evaluateExpression('$count(context.list.($$.context.s & "y"))', big)).rejects.toThrow(/built more than 16000000 characters and items/);
  });

  it('still answers ordinary expressions, in-process and isolated, with the engine clock', async () => {
    // Wide constructors are not deep: JSONata evaluates their items side by side (600 is past its old depth limit
    // of 500). Constant items keep the work small, so a loaded machine stays inside the 1 s deadline.
    const items = Array.from({ length: 600 }, () => '0').join(', ');
    expect(await evaluateExpression(`$count([${items}, context.missing])`, scope)).toBe(600);
    expect(await evaluateExpression(`($n := 1; $count([$n, ${items}]))`, scope)).toBe(601);
    expect(await evaluateExpression('$count(context.list) + 1', scope)).toBe(4);
    expect(await evaluateExpression('$join(context.list.$string(), ",")', scope)).toBe('1,2,3');
    expect(await evaluateExpression(`$replace(context.name, /a/, "A")`, scope)).toBe('Ann');
    const now = () => new Date('2026-03-04T05:06:07.089Z');
    expect(await evaluateExpression('$pad($string($millis()), -14, "0") & $now()', scope, { now })).toBe('01772600767089' + '2026-03-04T05:06:07.089Z');
    expect(await evaluateExpression('($f := function($n){ $n <= 1 ? 1 : $n * $f($n - 1) }; $f(5))', scope)).toBe(120);
  });

  it('faults the instance whose expression overruns, with the limit in the message', async () => {
    const { engine } = testEngine();
    await engine.createWorkflow({
      id: 'hostile',
      displayName: 'hostile',
      initialStateId: 'a',
      states: {
        a: { transitions: [{ id: 'go', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'go' }] }] },
        b: { entryActions: [{ type: 'setContext', expressions: { x: '($f := function($x){ 1 + $f($x) }; $f(1))' } }] },
      },
    });
    await engine.createInstance({ workflowId: 'hostile', instanceId: 'i1' });
    const result = await engine.applyTrigger('i1', { id: 't1', name: 'go', subjects: ['i1'] });
    expect(result).toMatchObject({ outcome: 'faulted', error: expect.stringMatching(recursionStopped) });
    expect((await engine.getInstance('i1')).status).toBe('faulted');
  });
});

describe('the compiled-expression cache', () => {
  it('keeps nothing from a definition that was rejected', async () => {
    const before = expressionCacheStats();
    // About 400 KB that JSONata parses (a long chain of `+` would overflow its parser's stack and be
    // refused as malformed before anything could be cached, so this test could not fail).
    const large = `[${Array.from({ length: 30_000 }, (_, index) => `context.v${index}`).join(', ')}]`;
    const rejected = { id: 'rejected', displayName: 'r', initialStateId: 'missing', states: { a: { entryConditions: [{ type: 'expression', expression: large }] } } };
    expect(() => validateDefinition(rejected)).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: 'initialStateId' })] }));
    expect(expressionCacheStats()).toEqual(before);
    // The same definition, valid, is compiled without caching too: only an evaluation caches.
    validateDefinition({ ...rejected, initialStateId: 'a' });
    expect(expressionCacheStats()).toEqual(before);
  });

  it('is bounded by size, not count', async () => {
    for (let round = 0; round < 40; round += 1) {
      const expression = `"${String(round).repeat(60_000)}" & context.name`;
      await evaluateExpression(expression, scope);
    }
    expect(expressionCacheStats().bytes).toBeLessThanOrEqual(EXPRESSION_CACHE_BUDGET_IN_BYTES);
    expect(expressionCacheStats().entries).toBeLessThan(40);
  });
});

describe("the worker's compiled-expression cache", () => {
  it("is bounded by size too: many large isolated expressions never fill the worker's heap", async () => {
    // 300 distinct programs of ~40,000 characters, each evaluated in a worker: about 300 MB of ASTs if kept
    // (a bound by count, 256 of them, overran the 64 MB heap and faulted ordinary evaluations).
    for (let round = 0; round < 300; round += 1) {
      const expression = `$join(["${String(round % 10).repeat(40_000)}", context.name], "-") & "${round}"`;
      await expect(evaluateExpression(expression, scope)).resolves.toMatch(new RegExp(`-ann${round}$`));
    }
  });
});

describe('interest limits', () => {
  it('refuses a state with more interests than MAX_INTERESTS_PER_STATE (declared or from conditions)', () => {
    const declared = Array.from({ length: MAX_INTERESTS_PER_STATE + 1 }, (_, index) => `topic:${index}`);
    expect(() => validateDefinition({ id: 'many', displayName: 'm', initialStateId: 'a', states: { a: { interests: declared } } })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: 'states.a.interests', message: expect.stringContaining(`at most ${MAX_INTERESTS_PER_STATE}`) })] }),
    );
    const transitions = Array.from({ length: MAX_INTERESTS_PER_STATE + 1 }, (_, index) => ({ id: `t${index}`, targetStateId: 'a', conditions: [{ type: 'triggerName', name: `Go${index}` }] }));
    expect(() => validateDefinition({ id: 'many', displayName: 'm', initialStateId: 'a', states: { a: { transitions } } })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: 'states.a.interests' })] }),
    );
    expect(() => validateDefinition({ id: 'enough', displayName: 'e', initialStateId: 'a', states: { a: { interests: declared.slice(1) } } })).not.toThrow();
  });

  it('faults an instance of a definition stored before the limit when it would hold too many interests', async () => {
    const { engine, workflows } = testEngine();
    // Stored directly, as an older version would have been, without today's validation.
    const valid = validateDefinition({ id: 'legacy', displayName: 'l', initialStateId: 'a', states: { a: {} } });
    const interests = Array.from({ length: 5000 }, (_, index) => `topic:${index}`);
    await workflows.create({ ...valid, states: { a: { ...valid.states.a!, interests } } }, { createdAt: new Date() });
    const instance = await engine.createInstance({ workflowId: 'legacy', instanceId: 'wide' });
    expect(instance).toMatchObject({ status: 'faulted', fault: { message: expect.stringContaining(`at most ${MAX_INTERESTS_PER_INSTANCE} are allowed`) } });
    expect(instance.interests.length).toBeLessThanOrEqual(MAX_INTERESTS_PER_INSTANCE);
  });
});

describe('the expression worker pool and the process', () => {
  it('does not keep a process alive once its work is done (a process that evaluated an isolated expression exits by itself)', async () => {
    // A child process, because this test process keeps its own workers until afterAll closes them. The
    // child ends only when nothing keeps its event loop alive: an idle worker that did would hold it open.
    const module = path.join(__dirname, '..', '..', 'src', 'engine', 'expressions', 'expressions.ts');
    const script = `require(${JSON.stringify(module)}).evaluateExpression('$join(["a", "b"], "-")', {}).then((value) => console.log(JSON.stringify(value)));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--eval', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const stillRunning = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 15_000).unref());
    const outcome = await Promise.race([exited, stillRunning]);
    if (outcome === 'still running') child.kill('SIGKILL');
    expect(output.trim()).toBe('"a-b"'); // it did evaluate in a worker
    expect(outcome).toBe(0);
  }, 30_000);
});
