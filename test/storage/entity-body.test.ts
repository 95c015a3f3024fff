/** Large JSON split across string properties, and the entity size Azure would count. */
import { StorageError } from '../../src/engine/model';
import { entitySizeInBytes, joinBody, MAX_PROPERTY_CHARS, splitBody, stringifyBody } from '../../src/storage/entity-body';

describe('splitBody and joinBody', () => {
  it('keeps the common small case in one property', () => {
    expect(splitBody('{"a":1}')).toEqual({ body: '{"a":1}' });
  });

  it('splits large JSON into parts under the property limit and joins them back', () => {
    const json = JSON.stringify({ text: 'x'.repeat(100_000) });
    const properties = splitBody(json);
    expect(properties.bodyParts).toBe(4);
    for (const [name, value] of Object.entries(properties)) if (name !== 'bodyParts') expect((value as string).length).toBeLessThanOrEqual(MAX_PROPERTY_CHARS);
    expect(joinBody(properties)).toBe(json);
  });

  it('never cuts a surrogate pair in half', () => {
    // Put a pair exactly across the first cut.
    const json = `${'a'.repeat(MAX_PROPERTY_CHARS - 1)}😀${'b'.repeat(10)}`;
    const properties = splitBody(json);
    expect((properties.body as string).endsWith('\uD83D')).toBe(false);
    expect(properties.body1).toMatch(/^😀/u);
    expect(joinBody(properties)).toBe(json);
  });

  it('reports a missing part as a StorageError', () => {
    const properties = splitBody('y'.repeat(MAX_PROPERTY_CHARS * 2 + 1));
    delete properties.body1;
    expect(() => joinBody({ ...properties, partitionKey: 'p', rowKey: 'r' })).toThrow(StorageError);
  });

  it('escapes U+2028 and U+2029 without changing the value', () => {
    const value = { text: 'a\u2028b\u2029c' };
    const json = stringifyBody(value);
    expect(json).not.toMatch(/[\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('entitySizeInBytes', () => {
  it('counts strings as UTF-16 with Azure overheads', () => {
    const small = entitySizeInBytes({ partitionKey: 'p', rowKey: 'r' });
    const withText = entitySizeInBytes({ partitionKey: 'p', rowKey: 'r', body: 'x'.repeat(1000) });
    expect(withText - small).toBe(8 + 2 * 'body'.length + 4 + 2000);
  });
});
