/**
 * @module Which expressions run in the isolated worker pool rather than in-process. In-process evaluation
 * is bounded by JSONata's guardrails (deadline, depth, sequence size) and a per-step budget, but those
 * are checked between steps: a single step that loops or allocates without end (a recursive function,
 * a catastrophic regex, `$pad` to 50M characters, a range of 10M items, a variable doubled forty times
 * and then serialised) cannot be stopped from inside the event loop. Those constructs go to a worker that
 * has a heap limit and is terminated at the deadline. Everything else (paths, arithmetic, comparisons,
 * predicates, most built-ins) stays in-process, where an evaluation costs microseconds, not a thread hop.
 */
import type jsonata from 'jsonata';

/**
 * Built-ins whose one call can build a string far larger than its inputs (`$pad`, `$join` with a long
 * separator, `$replace`), run a regex, or evaluate text as an expression. The others build at most about
 * what they read, which the per-step budget counts.
 */
const isolatedFunctions = new Set(['pad', 'join', 'replace', 'match', 'split', 'contains', 'eval']);
/**
 * Node types that define or apply functions (recursion), bind variables (a value doubled forty times
 * costs forty steps), clone (`|...|`), or are regexes.
 */
const isolatedNodeTypes = new Set(['lambda', 'regex', 'transform', 'partial', 'bind', 'apply']);

type Node = jsonata.ExprNode & Record<string, unknown>;

/** Whether the compiled expression needs the worker pool (see the module comment). */
export function needsIsolation(ast: jsonata.ExprNode): boolean {
  const pending: unknown[] = [ast];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      pending.push(...item);
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    const node = item as Node;
    if (typeof node.type === 'string') {
      if (isolatedNodeTypes.has(node.type)) return true;
      if (node.type === 'binary' && node.value === '..') return true;
      if (node.type === 'variable' && typeof node.value === 'string' && isolatedFunctions.has(node.value)) return true;
      if (node.type === 'function') {
        const procedure = node.procedure as Node | undefined;
        // Only calls of a named built-in stay in-process; calling a computed value might call anything.
        if (procedure?.type !== 'variable' || typeof procedure.value !== 'string' || isolatedFunctions.has(procedure.value)) return true;
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (key !== 'position' && value !== null && typeof value === 'object') pending.push(value);
    }
  }
  return false;
}
