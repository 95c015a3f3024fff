/** The rows a save writes beside the instance row (instance-rows.ts): keys, actions, and the refusals made before anything is written. */
import { TooLargeError, ValidationError } from '../../src/engine/model';
import { columnsOf, historyRowKey, instanceFilter, MAX_ROWS_PER_SAVE, saveRows, withoutEtag } from '../../src/storage/instance-rows';
import { encodeKey } from '../../src/storage/keys';
import { makeHistoryEntry, makeInstance } from './fixtures';

describe('saveRows', () => {
  it('creates history rows and fences, and upserts outbox and applied rows, in that order', () => {
    const actions = saveRows(
      'p',
      {
        history: [makeHistoryEntry(3)],
        outbox: [{ id: 'o/1', kind: 'trigger', instanceId: 'i', trigger: { id: 't', name: 'go' } } as never],
        applied: [{ triggerId: 't#1', outcome: 'transitioned' }],
        fences: ['claim-1'],
      },
      'instance "i"',
    );
    expect(actions.map(([kind, entity]) => [kind, entity.rowKey])).toEqual([
      ['create', 'h-0000000003'],
      ['upsert', `o-${encodeKey('o/1')}`],
      ['upsert', `a-${encodeKey('t#1')}`],
      ['create', `f-${encodeKey('claim-1')}`],
    ]);
    expect(actions.every(([, entity]) => entity.partitionKey === 'p')).toBe(true);
  });

  it(`refuses more than ${MAX_ROWS_PER_SAVE} rows, naming the history field`, () => {
    const history = Array.from({ length: MAX_ROWS_PER_SAVE + 1 }, (_, sequence) => makeHistoryEntry(sequence));
    let caught: unknown;
    try {
      saveRows('p', { history }, 'instance "i"');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).issues[0]?.path).toBe('history');
    expect(saveRows('p', { history: history.slice(1) }, 'instance "i"')).toHaveLength(MAX_ROWS_PER_SAVE);
  });

  it('refuses a history entry too large for an entity', () => {
    const entry = makeHistoryEntry(1, { toStateId: 'x'.repeat(600_000) });
    expect(() => saveRows('p', { history: [entry] }, 'instance "i"')).toThrow(TooLargeError);
  });
});

describe('the instance row', () => {
  it('carries the query columns, the parent only when there is one, and no ETag in the body', () => {
    const instance = makeInstance('a/b', { parent: { instanceId: 'parent-1' } as never });
    expect(columnsOf(instance)).toMatchObject({ partitionKey: encodeKey('a/b'), rowKey: 'instance', workflowId: 'wf', stateId: 'open', parentId: 'parent-1' });
    expect(columnsOf(makeInstance('c'))).not.toHaveProperty('parentId');
    expect(withoutEtag({ ...instance, etag: 'W/"1"' } as never)).not.toHaveProperty('etag');
  });

  it('filters instance queries on the columns given, quoting their values', () => {
    expect(instanceFilter({})).toBe("RowKey eq 'instance'");
    expect(instanceFilter({ workflowId: "o'hara", status: 'waiting' })).toBe("RowKey eq 'instance' and workflowId eq 'o''hara' and status eq 'waiting'");
  });

  it('zero-pads history row keys so they sort as numbers', () => {
    expect([historyRowKey(10), historyRowKey(9)].sort()).toEqual([historyRowKey(9), historyRowKey(10)]);
  });
});
