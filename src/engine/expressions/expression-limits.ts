/**
 * @module The bounds every expression evaluation runs under (README, "Limits"). An evaluation that
 * overruns one fails with ExpressionLimitError, which faults the instance like any other step failure;
 * it never hangs or kills the process.
 */
import { foreignErrorCode } from '../model/errors';

/** Wall-clock time one evaluation may take. */
export const EXPRESSION_DEADLINE_IN_MS = 1000;
/** Heap of an isolated evaluation's worker (old generation); its young generation is capped too. */
export const EXPRESSION_MEMORY_LIMIT_IN_MB = 64;
/**
 * Evaluation steps in flight at once, for isolated expressions: JSONata counts nesting and recursion, but
 * also the items of an array or object constructor it evaluates side by side, so this is far above any
 * real nesting (an isolated expression with a literal array of over 2,000 items is refused). In-process
 * expressions cannot recurse and are not counted.
 */
export const MAX_EXPRESSION_DEPTH = 2_000;
/** Items in one JSONata sequence. */
export const MAX_EXPRESSION_SEQUENCE = 100_000;
/** Characters in any one string an expression builds (an instance is at most 1 MiB, so longer never fits). */
export const MAX_EXPRESSION_STRING_LENGTH = 1_000_000;
/**
 * What one in-process evaluation may build in all: string characters plus array items plus one per step,
 * summed over every step. Bounds the memory and time of expressions that cannot loop.
 */
export const MAX_EXPRESSION_BUILT_SIZE = 16_000_000;

/** An expression overran its deadline, its memory or a size bound. */
export class ExpressionLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionLimitError';
  }
}

/** JSONata's guardrail codes for depth (D1011), time (D1012) and sequence size (D2015). */
const limitCodes = new Set(['D1011', 'D1012', 'D2015']);

/** Turns JSONata's plain-object errors into Errors; its guardrail errors into ExpressionLimitError. */
export function toExpressionError(error: unknown): Error {
  const code = foreignErrorCode(error);
  if (error instanceof Error && code === undefined) return error;
  if (code && limitCodes.has(code)) {
    const what =
      code === 'D1011'
        ? `nests deeper than ${MAX_EXPRESSION_DEPTH} steps (unbounded recursion?)`
        : code === 'D1012'
          ? `ran past its deadline of ${EXPRESSION_DEADLINE_IN_MS} ms`
          : `built a sequence of more than ${MAX_EXPRESSION_SEQUENCE} items`;
    return new ExpressionLimitError(`the expression ${what}`);
  }
  if (error instanceof Error) return error;
  const message = typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string' ? error.message : String(error);
  return Object.assign(new Error(message), code ? { code } : {});
}
