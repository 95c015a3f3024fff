/**
 * The seams matrix (issue 22, group 11): every bounding or deduplicating mechanism crossed with every kind
 * of follow-up work must have a row in test/seams/, a test named `<mechanism> × <feature>[, <feature>...]: ...`.
 * This test reads the test names of the files beside it and fails for each (mechanism, feature) cell that
 * has none. The features include every OutboxKind (the kinds of follow-up work a change can leave behind),
 * each mapped to the feature whose rows cover it: a new kind of follow-up work does not compile until it
 * is mapped here, and a new feature name has no rows until each mechanism adds one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OutboxKind } from '../../src/engine/model';

/** The features that make follow-up work, as test names spell them. */
const FEATURES = ['raised triggers', 'timers', 'children', 'events', 'migrations', 'bulk actions', 'deletion', 're-creation', 'pending retries', 'debounced triggers', 'capacity re-offers'] as const;
type Feature = (typeof FEATURES)[number];

/** Each kind of outbox row (follow-up work a change leaves behind) and the feature whose rows cover it. */
const FEATURE_OF_OUTBOX_KIND: Record<OutboxKind, Feature> = {
  [OutboxKind.trigger]: 'raised triggers',
  [OutboxKind.timer]: 'timers',
  [OutboxKind.event]: 'events',
  [OutboxKind.startInstance]: 'children',
  // The cancel cascade to a parent's children.
  [OutboxKind.cancelChildren]: 'children',
};

/** The mechanisms, each with the names its tests start with (`<name> × ...`). */
const MECHANISMS: ReadonlyArray<{ readonly mechanism: string; readonly names: readonly string[] }> = [
  { mechanism: 'causal depth', names: ['causal depth'] },
  { mechanism: 'applied-ids memory', names: ['applied once'] },
  { mechanism: 'derived ids and incarnations', names: ['incarnations'] },
  { mechanism: 'ordering', names: ['event order'] },
  { mechanism: 'retention', names: ['due-timer rows', 'operation retention', 'instance retention'] },
  { mechanism: 'crash resumption', names: ['crash resumption'] },
  { mechanism: 'actor', names: ['actor'] },
  { mechanism: 'search rows', names: ['search rows'] },
  { mechanism: 'concurrency slots', names: ['concurrency slots'] },
  { mechanism: 'tenants', names: ['tenants'] },
];

/** Test names declared in a file: the first argument of `it(...)` or `test(...)` when it is a literal. */
function testNames(source: string): string[] {
  const names: string[] = [];
  const call = /\b(?:it|test)\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;
  for (let match = call.exec(source); match; match = call.exec(source)) names.push(match[2]!.replace(/\\(.)/g, '$1'));
  return names;
}

/** `<mechanism> × <features>: ...` as its mechanism and features (parenthesised remarks left out), or undefined. */
function parseRow(name: string): { mechanism: string; features: string[] } | undefined {
  const cross = name.indexOf(' × ');
  const colon = name.indexOf(':', cross);
  if (cross < 0 || colon < 0) return undefined;
  const plain = (text: string) => text.replace(/\([^)]*\)/g, '').trim();
  const features = plain(name.slice(cross + 3, colon))
    .split(/,\s*|\s+and\s+/)
    .map((feature) => feature.trim())
    .filter((feature) => feature.length > 0);
  return { mechanism: plain(name.slice(0, cross)), features };
}

/** Every row of the seams files: file, mechanism name as written, features. */
function rows(): Array<{ file: string; mechanism: string; features: string[] }> {
  const dir = __dirname;
  return readdirSync(dir)
    .filter((file) => file.endsWith('.test.ts') && file !== 'matrix.test.ts')
    .flatMap((file) =>
      testNames(readFileSync(join(dir, file), 'utf8')).flatMap((name) => {
        const row = parseRow(name);
        return row ? [{ file, ...row }] : [];
      }),
    );
}

describe('the seams matrix', () => {
  it('maps every kind of outbox row to a feature of the matrix', () => {
    for (const kind of Object.values(OutboxKind)) {
      expect({ kind, feature: FEATURES.includes(FEATURE_OF_OUTBOX_KIND[kind]) ? FEATURE_OF_OUTBOX_KIND[kind] : undefined }).toEqual({ kind, feature: expect.any(String) });
    }
  });

  it('reads test names as rows (features listed with commas and "and", remarks in parentheses left out)', () => {
    expect(parseRow('event order × migrations and bulk actions: heard in order')).toEqual({ mechanism: 'event order', features: ['migrations', 'bulk actions'] });
    expect(parseRow('operation retention × raised triggers, timers, migrations and bulk actions: only finished go')).toEqual({
      mechanism: 'operation retention',
      features: ['raised triggers', 'timers', 'migrations', 'bulk actions'],
    });
    expect(parseRow('due-timer rows × bulk actions (cancel): removed')).toEqual({ mechanism: 'due-timer rows', features: ['bulk actions'] });
    expect(parseRow('a test of something else')).toBeUndefined();
  });

  it('has a row for every mechanism crossed with every feature (every kind of follow-up work included)', () => {
    const features = [...new Set<string>([...FEATURES, ...Object.values(FEATURE_OF_OUTBOX_KIND)])];
    const found = rows();
    const missing: string[] = [];
    for (const { mechanism, names } of MECHANISMS) {
      for (const feature of features) {
        if (!found.some((row) => names.includes(row.mechanism) && row.features.includes(feature))) missing.push(`${mechanism} × ${feature} (a test named "${names[0]} × ${feature}: ...")`);
      }
    }
    expect(missing).toEqual([]);
  });
});
