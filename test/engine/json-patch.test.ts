/**
 * RFC 6902 JSON Patch: a diff applied to its `before` gives its `after` (objects, arrays that grow and
 * shrink, deletions, keys with `/` and `~`, a root replaced whole, a large context), and applying the
 * standard's own operations (test, move, copy, `-`) behaves as RFC 6902 says, refusing paths that name nothing.
 */
import { applyJsonPatch, diffJson, JsonPatchError, type JsonPatch, type JsonValue } from '../../src/engine/model';

function roundTrip(before: JsonValue, after: JsonValue): JsonPatch {
  const patch = diffJson(before, after);
  expect(applyJsonPatch(before, patch)).toEqual(after);
  return patch;
}

describe('diffJson', () => {
  it('is empty for equal values, whatever the key order', () => {
    expect(diffJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toEqual([]);
  });

  it('adds, replaces and removes keys, deep in the document', () => {
    const patch = roundTrip({ a: 1, gone: true, nested: { x: 'old', keep: 1 } }, { a: 2, nested: { x: 'new', keep: 1, y: null } });
    expect(patch).toEqual([
      { op: 'remove', path: '/gone' },
      { op: 'replace', path: '/a', value: 2 },
      { op: 'replace', path: '/nested/x', value: 'new' },
      { op: 'add', path: '/nested/y', value: null },
    ]);
  });

  it('grows and shrinks arrays at the end, removing the last first', () => {
    expect(roundTrip([1, 2, 3, 4], [1, 9])).toEqual([
      { op: 'replace', path: '/1', value: 9 },
      { op: 'remove', path: '/3' },
      { op: 'remove', path: '/2' },
    ]);
    expect(roundTrip({ items: [{ id: 1 }] }, { items: [{ id: 1, done: true }, { id: 2 }] })).toEqual([
      { op: 'add', path: '/items/0/done', value: true },
      { op: 'add', path: '/items/1', value: { id: 2 } },
    ]);
  });

  it('escapes "/" and "~" in keys (RFC 6901)', () => {
    expect(roundTrip({ 'a/b': 1, 'c~d': 1 }, { 'a/b': 2, 'c~d': 2 })).toEqual([
      { op: 'replace', path: '/a~1b', value: 2 },
      { op: 'replace', path: '/c~0d', value: 2 },
    ]);
  });

  it('replaces a value of another kind, and a root of another kind, whole', () => {
    expect(roundTrip({ a: [1] }, { a: { 0: 1 } })).toEqual([{ op: 'replace', path: '/a', value: { 0: 1 } }]);
    expect(roundTrip({ a: 1 }, [1])).toEqual([{ op: 'replace', path: '', value: [1] }]);
  });

  it('rebuilds a context replaced whole (no key kept)', () => {
    roundTrip({ a: 1, b: { c: [1, 2] } }, { x: 'y', z: [true] });
  });

  it('records only what changed in a large context', () => {
    const big: JsonValue = { rows: Array.from({ length: 2000 }, (_, index) => ({ index, label: `row ${index}` })) };
    const changed = structuredClone(big) as { rows: { index: number; label: string }[] };
    changed.rows[1500]!.label = 'edited';
    const patch = roundTrip(big, changed);
    expect(patch).toEqual([{ op: 'replace', path: '/rows/1500/label', value: 'edited' }]);
  });
});

describe('applyJsonPatch', () => {
  it('does not change the document it is given', () => {
    const document = { a: { b: 1 } };
    applyJsonPatch(document, [{ op: 'replace', path: '/a/b', value: 2 }]);
    expect(document).toEqual({ a: { b: 1 } });
  });

  it('applies add with "-", insertion into arrays, test, copy and move', () => {
    const result = applyJsonPatch({ list: [1, 3], from: { v: 'x' } }, [
      { op: 'add', path: '/list/-', value: 4 },
      { op: 'add', path: '/list/1', value: 2 },
      { op: 'test', path: '/list', value: [1, 2, 3, 4] },
      { op: 'copy', from: '/from/v', path: '/copied' },
      { op: 'move', from: '/from', path: '/moved' },
    ]);
    expect(result).toEqual({ list: [1, 2, 3, 4], copied: 'x', moved: { v: 'x' } });
  });

  it('refuses a path that names nothing, a failed test and an index out of bounds, naming the operation', () => {
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '/b' }])).toThrow(new JsonPatchError('operation 0 (remove): "/b" names nothing'));
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(/operation 0 \(test\): test of "\/a" failed/);
    expect(() => applyJsonPatch([1], [{ op: 'add', path: '/5', value: 1 }])).toThrow(/out of bounds/);
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/a/b/c', value: 1 }])).toThrow(/names nothing|not an object/);
  });
});
