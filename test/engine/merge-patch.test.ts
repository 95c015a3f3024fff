/** JSON Merge Patch (RFC 7386) of a context, as a recovery applies it: the RFC's own examples and the edges. */
import { applyMergePatch, contextPatchSchema, MAX_CONTEXT_PATCH_SIZE_IN_BYTES } from '../../src/engine/model';

describe('applyMergePatch', () => {
  it('follows RFC 7386 section 3: keys set, nested objects merged, null removes, arrays replaced', () => {
    const target = { title: 'Goodbye!', author: { givenName: 'John', familyName: 'Doe' }, tags: ['example', 'sample'], content: 'This will be unchanged' };
    const patch = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
    expect(applyMergePatch(target, patch)).toEqual({ title: 'Hello!', author: { givenName: 'John' }, tags: ['example'], content: 'This will be unchanged', phoneNumber: '+01-123-456-7890' });
    // Pure: the target is untouched.
    expect(target.author).toEqual({ givenName: 'John', familyName: 'Doe' });
  });

  it('replaces a non-object with an object patch, and keeps `__proto__` a plain key', () => {
    expect(applyMergePatch({ a: 1 }, { a: { b: { c: null, d: 2 } } })).toEqual({ a: { b: { d: 2 } } });
    const patched = applyMergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(Object.getPrototypeOf(patched)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(patched)).toEqual(['__proto__']);
  });

  it('accepts an object of at most 64 KiB, nothing else', () => {
    expect(contextPatchSchema.safeParse({ a: 1 }).success).toBe(true);
    expect(contextPatchSchema.safeParse([1]).success).toBe(false);
    expect(contextPatchSchema.safeParse('x').success).toBe(false);
    expect(contextPatchSchema.safeParse({ a: 'x'.repeat(MAX_CONTEXT_PATCH_SIZE_IN_BYTES) }).success).toBe(false);
  });
});
