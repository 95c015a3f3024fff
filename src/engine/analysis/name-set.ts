/**
 * @module Sets of trigger names that may be infinite: either exactly `names` or every name except
 * `names`. Closed under union, intersection and complement, which is what `all`, `any` and `not` need.
 */

export type NameSet = { readonly kind: 'only'; readonly names: ReadonlySet<string> } | { readonly kind: 'allExcept'; readonly names: ReadonlySet<string> };

export const noNames: NameSet = { kind: 'only', names: new Set() };
export const everyName: NameSet = { kind: 'allExcept', names: new Set() };

export function onlyNames(...names: string[]): NameSet {
  return { kind: 'only', names: new Set(names) };
}

export function complement(set: NameSet): NameSet {
  return { kind: set.kind === 'only' ? 'allExcept' : 'only', names: set.names };
}

export function union(a: NameSet, b: NameSet): NameSet {
  if (a.kind === 'only' && b.kind === 'only') return { kind: 'only', names: new Set([...a.names, ...b.names]) };
  if (a.kind === 'allExcept' && b.kind === 'allExcept') return { kind: 'allExcept', names: new Set([...a.names].filter((name) => b.names.has(name))) };
  const [finite, cofinite] = a.kind === 'only' ? [a, b] : [b, a];
  return { kind: 'allExcept', names: new Set([...cofinite.names].filter((name) => !finite.names.has(name))) };
}

export function intersection(a: NameSet, b: NameSet): NameSet {
  return complement(union(complement(a), complement(b)));
}

export function isEmpty(set: NameSet): boolean {
  return set.kind === 'only' && set.names.size === 0;
}

/** Whether every name in `a` is in `b`. */
export function isSubset(a: NameSet, b: NameSet): boolean {
  if (a.kind === 'only') return b.kind === 'only' ? [...a.names].every((name) => b.names.has(name)) : [...a.names].every((name) => !b.names.has(name));
  // a is infinite: only an infinite b that excludes no more than a does can hold it.
  return b.kind === 'allExcept' && [...b.names].every((name) => a.names.has(name));
}

export function sortedNames(set: NameSet): string[] {
  return [...set.names].sort();
}
