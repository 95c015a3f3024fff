/**
 * @module The caches of compiled expressions and parsed templates, bounded by an estimate of their size in
 * bytes (a count bound let a few large expressions hold tens of MB), half the budget each. Only what runs is
 * cached: validation compiles without caching, so a rejected definition leaves nothing behind.
 */
import type { CompiledExpression } from './expression-evaluation';
import type { TemplatePart } from './templates';

/** What both caches together may hold, in estimated bytes. */
export const EXPRESSION_CACHE_BUDGET_IN_BYTES = 32 * 1024 * 1024;

/** Values by key, at most `budgetInBytes` of their estimated sizes; the oldest entries go first. */
export class SizedCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  constructor(private readonly budgetInBytes: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Caches `value` unless it alone is over the budget; evicts the oldest entries to make room. */
  set(key: string, value: V, bytes: number): V {
    if (bytes > this.budgetInBytes || this.entries.has(key)) return value;
    for (const [oldest, entry] of this.entries) {
      if (this.total + bytes <= this.budgetInBytes) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    return value;
  }

  get sizeInBytes(): number {
    return this.total;
  }

  get count(): number {
    return this.entries.size;
  }
}

export const expressionCache = new SizedCache<CompiledExpression>(EXPRESSION_CACHE_BUDGET_IN_BYTES / 2);
export const templateCache = new SizedCache<readonly TemplatePart[]>(EXPRESSION_CACHE_BUDGET_IN_BYTES / 2);

/** What the caches hold now (tests and diagnostics). */
export function expressionCacheStats(): { entries: number; bytes: number } {
  return { entries: expressionCache.count + templateCache.count, bytes: expressionCache.sizeInBytes + templateCache.sizeInBytes };
}
