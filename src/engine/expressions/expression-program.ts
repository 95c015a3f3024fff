/**
 * @module A JSONata program as the engine runs it in-process: bounded by JSONata's guardrails and a budget on
 * what one evaluation builds, and `$now()` / `$millis()` bound to the engine's clock (clockBindings), so
 * expressions stay deterministic under a fake clock and agree with the timestamps the engine records.
 */
import jsonata from 'jsonata';
import { EXPRESSION_DEADLINE_IN_MS, ExpressionLimitError, MAX_EXPRESSION_BUILT_SIZE, MAX_EXPRESSION_SEQUENCE, MAX_EXPRESSION_STRING_LENGTH } from './expression-limits';

// `$now(picture, timezone)` with arguments formats through JSONata's own $fromMillis.
let fromMillis: jsonata.Expression | undefined;

/** The bindings of `$now()` and `$millis()` for one evaluation, read from `now`. */
export function clockBindings(now: () => Date): Record<string, unknown> {
  // One timestamp per evaluation, as JSONata itself does.
  const at = now();
  const millis = at.getTime();
  return {
    millis: () => millis,
    now: (picture?: string, timezone?: string) => {
      if (picture === undefined && timezone === undefined) return at.toISOString();
      fromMillis ??= jsonata('$fromMillis($m, $p, $t)');
      return fromMillis.evaluate({}, { m: millis, p: picture, t: timezone });
    },
  };
}

/**
 * Guardrails JSONata checks at every step: the deadline and the sequence size (not its depth count: it
 * counts an array constructor's items as nesting, and in-process expressions cannot recurse). The exit
 * hook adds a budget on what one evaluation builds (string characters plus array items plus steps), so an
 * in-process evaluation is bounded in memory as well as time (expression-isolation.ts says what is not).
 */
export function newProgram(source: string): jsonata.Expression {
  const program = jsonata(source, { timeout: EXPRESSION_DEADLINE_IN_MS, sequence: MAX_EXPRESSION_SEQUENCE });
  program.assign(EVALUATE_EXIT as unknown as string, countBuilt);
  return program;
}

const EVALUATE_EXIT = Symbol.for('jsonata.__evaluate_exit');

/** The per-evaluation frame JSONata passes to its hooks; `base` is the evaluation's root frame. */
interface BudgetFrame {
  readonly base: { signalboxBuilt?: number };
}

function countBuilt(_expression: unknown, _input: unknown, environment: BudgetFrame, result: unknown): void {
  let cost = 1;
  if (typeof result === 'string') {
    if (result.length > MAX_EXPRESSION_STRING_LENGTH)
      throw new ExpressionLimitError(`the expression built a string of ${result.length} characters; at most ${MAX_EXPRESSION_STRING_LENGTH} are allowed`);
    cost += result.length;
  } else if (Array.isArray(result)) {
    cost += result.length;
  }
  const base = environment.base;
  const built = (base.signalboxBuilt ?? 0) + cost;
  if (built > MAX_EXPRESSION_BUILT_SIZE) throw new ExpressionLimitError(`the expression built more than ${MAX_EXPRESSION_BUILT_SIZE} characters and items in one evaluation`);
  base.signalboxBuilt = built;
}
