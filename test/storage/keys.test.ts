/** Key encoding: reversible, valid for Table Storage and blob names, on nasty ids (and on Azurite). */
import { onePage } from '../../src/engine/ports';
import { ValidationError } from '../../src/engine/model';
import { decodeKey, encodeBlobName, encodeKey, encodeLookupKey, MAX_TABLE_KEY_LENGTH, padNumber } from '../../src/storage/keys';
import { collect, createTestStorage, makeHistoryEntry, makeInstance } from './fixtures';

const nastyIds = [
  'a/b',
  'c\\d',
  'e#f',
  'g?h',
  'ünïcødé',
  '😀 emoji',
  'ctrl\u0000\u0001\u001f\u007f\u0085',
  '~tilde~7E',
  '%25 percent',
  "it's 'quoted'",
  ' spaces ',
  'trailing.',
  'colon:dash-dot.under_score',
  '\u2028line separator',
];

describe('encodeKey', () => {
  it.each(nastyIds)('round-trips %j into a key Table Storage accepts', (id) => {
    const key = encodeKey(id);
    expect(decodeKey(key)).toBe(id);
    // No / \ # ? or control characters, and pure ASCII.
    expect(key).toMatch(/^[\x20-\x7E]+$/);
    expect(key).not.toMatch(/[/\\#?]/);
  });

  it('leaves ordinary ids unchanged, so they stay readable and ordered', () => {
    for (const id of ['order-123', 'a.b_c:d', 'Z9']) expect(encodeKey(id)).toBe(id);
    const ids = ['a-1', 'a-2', 'b', 'b.0'];
    expect(ids.map((id) => encodeKey(id))).toEqual([...ids].sort());
  });

  it('keeps distinct ids distinct', () => {
    const keys = new Set(nastyIds.map((id) => encodeKey(id)));
    expect(keys.size).toBe(nastyIds.length);
    expect(encodeKey('~41')).not.toBe(encodeKey('A'));
  });

  it('refuses ids that cannot be keys with a ValidationError', () => {
    expect(() => encodeKey('')).toThrow(ValidationError);
    expect(() => encodeKey('\uD800 lone surrogate')).toThrow(ValidationError);
    expect(() => encodeKey('x'.repeat(MAX_TABLE_KEY_LENGTH + 1))).toThrow(ValidationError);
    expect(() => encodeKey('/'.repeat(200))).toThrow(/too long/);
    expect(encodeKey('x'.repeat(MAX_TABLE_KEY_LENGTH))).toHaveLength(MAX_TABLE_KEY_LENGTH);
  });
});

describe('encodeLookupKey and encodeBlobName', () => {
  it('shorten long values with a hash, keeping different long values apart', () => {
    const a = encodeLookupKey(`${'s'.repeat(1000)}a`);
    const b = encodeLookupKey(`${'s'.repeat(1000)}b`);
    expect(a.length).toBeLessThanOrEqual(MAX_TABLE_KEY_LENGTH);
    expect(a).not.toBe(b);
    expect(a).toContain('~~');
    expect(encodeLookupKey('short/subject')).toBe(encodeKey('short/subject'));
    // Never cut inside an escape: the prefix before ~~ decodes.
    const escaped = encodeLookupKey('/'.repeat(400));
    expect(() => decodeKey(escaped.slice(0, escaped.indexOf('~~')))).not.toThrow();
  });

  it('makes blob names without a trailing dot, at most 1024 characters', () => {
    expect(encodeBlobName('name.')).toBe('name~2E');
    expect(encodeBlobName('x'.repeat(5000)).length).toBeLessThanOrEqual(1024);
    expect(encodeBlobName('a/b')).toBe('a~2Fb');
  });

  it('pads numbers so row keys sort numerically, and refuses what does not fit', () => {
    expect(padNumber(42)).toBe('0000000042');
    expect(padNumber(9)).toBe('0000000009');
    expect(padNumber(9) < padNumber(10)).toBe(true);
    expect(() => padNumber(-1)).toThrow(RangeError);
    expect(() => padNumber(1e10)).toThrow(RangeError);
  });
});

describe('nasty ids on Azure Table Storage', () => {
  it('stores, reads, queries, indexes and pages instances with nasty ids and subjects', async () => {
    const storage = await createTestStorage();
    const longSubject = `subject/${'é'.repeat(600)}`;
    for (const id of nastyIds) {
      await storage.instances.create(makeInstance(id, { workflowId: 'nasty/wf#1', interests: [id, longSubject], historyLength: 1 }), { history: [makeHistoryEntry(0)] });
      await storage.interests.add(id, [id, longSubject]);
    }
    for (const id of nastyIds) {
      expect((await storage.instances.get(id))?.id).toBe(id);
      expect((await onePage(storage.history.list(id))).items).toHaveLength(1);
      expect((await onePage(storage.interests.findCandidates([id]))).items).toEqual([id]);
    }
    const listed = await collect((options) => onePage(storage.instances.query({ workflowId: 'nasty/wf#1' }, options)), 4);
    expect(listed.items.map((item) => item.id).sort()).toEqual([...nastyIds].sort());
    // Paging through a partition of nasty row keys: the SDK's own token must survive them.
    const candidates = await collect((options) => onePage(storage.interests.findCandidates([longSubject], options)), 3);
    expect(candidates.items.sort()).toEqual([...nastyIds].sort());
  });
});
