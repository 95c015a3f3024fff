/** Search rows kept with every change: written before the save, stale ones removed with the next save, all gone with the instance. */
import { Engine, ValidationError } from '../../../src/engine';
import { claims } from './claims-workflow';
import { InMemorySearchIndex, createInMemoryPorts } from '../../../src/testing';
import { FakeClock, recordingLogger, trigger } from '../support';

function engineWith(search: InMemorySearchIndex, hmacKey?: string): Engine {
  return new Engine({ ...createInMemoryPorts(), search }, { clock: new FakeClock(), logger: recordingLogger(), ...(hmacKey ? { searchHmacKey: hmacKey } : {}) });
}

describe('search rows', () => {
  it('are written at creation for built-in and declared fields, and the instance lists them', async () => {
    const search = new InMemorySearchIndex();
    const engine = engineWith(search, 'k'.repeat(32));
    await engine.createWorkflow(claims);
    const created = await engine.createInstance({ workflowId: 'claims', instanceId: 'c1', businessKey: 'INV-4711', context: { amount: 1200, region: 'North', tags: ['a', 'b'], iban: 'DE00' } });
    const fields = search.entriesOf('claims', 'c1').map((entry) => entry.split('!')[0]);
    expect(fields).toEqual(['amount', 'businessKey', 'createdAt', 'iban', 'region', 'stateId', 'status', 'tags', 'tags', 'updatedAt']);
    expect(created.search?.entries).toEqual(search.entriesOf('claims', 'c1'));
    expect(created.search?.problems).toBeUndefined();
    // One batch per save, however many indexes.
    expect(search.writes).toBe(1);
  });

  it('a changed value: the new row before the save, the old one removed with the next save (one batch each)', async () => {
    const search = new InMemorySearchIndex();
    const engine = engineWith(search);
    await engine.createWorkflow(claims);
    await engine.createInstance({ workflowId: 'claims', instanceId: 'c1', context: { amount: 10 } });
    await engine.applyTrigger('c1', trigger('Raise', { subjects: ['c1'], parameters: { amount: 20 } }));
    const afterFirst = await engine.getInstance('c1');
    const amounts = () => search.entriesOf('claims', 'c1').filter((entry) => entry.startsWith('amount!'));
    expect(amounts()).toHaveLength(2); // the stale row waits for the next save
    expect(afterFirst.search?.stale?.some((entry) => entry.startsWith('amount!'))).toBe(true);
    await engine.applyTrigger('c1', trigger('Raise', { subjects: ['c1'], parameters: { amount: 30 } }));
    expect(amounts()).toHaveLength(2);
    expect(search.writes).toBe(3);
    await engine.applyTrigger('c1', trigger('Close', { subjects: ['c1'] }));
    // Ended: its stale rows go at once.
    const final = await engine.getInstance('c1');
    expect(search.entriesOf('claims', 'c1')).toEqual([...final.search!.entries]);
  });

  it('an expression of the wrong type leaves its field unindexed and says so on the instance; it never faults', async () => {
    const search = new InMemorySearchIndex();
    const engine = engineWith(search);
    await engine.createWorkflow(claims);
    const created = await engine.createInstance({ workflowId: 'claims', instanceId: 'c1', context: { amount: 'lots', region: 7, iban: 'DE00' } });
    expect(created.status).toBe('waiting');
    expect(created.search?.problems).toEqual({
      amount: 'the expression yielded a string, not a number',
      region: expect.stringContaining('the expression failed'),
      iban: 'sensitive, and no index key is configured (SIGNALBOX_INDEX_HMAC_KEY)',
    });
    expect(search.entriesOf('claims', 'c1').some((entry) => /^(amount|region|iban)!/.test(entry))).toBe(false);
  });

  it('are all removed with the instance', async () => {
    const search = new InMemorySearchIndex();
    const engine = engineWith(search);
    await engine.createWorkflow(claims);
    await engine.createInstance({ workflowId: 'claims', instanceId: 'c1', context: { amount: 10 } });
    await engine.applyTrigger('c1', trigger('Raise', { subjects: ['c1'], parameters: { amount: 20 } }));
    await engine.deleteInstance('c1', { force: true });
    expect(search.entriesOf('claims', 'c1')).toEqual([]);
  });

  it('a unique business key is refused a second time, naming the holder (409); a deleted holder frees it', async () => {
    const search = new InMemorySearchIndex();
    const engine = engineWith(search);
    await engine.createWorkflow({ ...claims, uniqueBusinessKey: true });
    await engine.createInstance({ workflowId: 'claims', instanceId: 'c1', businessKey: 'INV-4711' });
    await expect(engine.createInstance({ workflowId: 'claims', instanceId: 'c2', businessKey: 'INV-4711' })).rejects.toThrow('The business key "INV-4711" is taken by instance "c1"');
    await engine.deleteInstance('c1', { force: true });
    await expect(engine.createInstance({ workflowId: 'claims', instanceId: 'c2', businessKey: 'INV-4711' })).resolves.toMatchObject({ businessKey: 'INV-4711' });
  });

  it('declarations are validated: at most 16, unique names, no built-in names, valid JSONata', async () => {
    const engine = engineWith(new InMemorySearchIndex());
    const many = Array.from({ length: 17 }, (_, index) => ({ name: `f${index}`, type: 'string' as const, expression: 'context.x' }));
    await expect(engine.createWorkflow({ ...claims, indexes: many })).rejects.toThrow(ValidationError);
    await expect(engine.createWorkflow({ ...claims, indexes: [{ name: 'status', type: 'string', expression: 'context.x' }] })).rejects.toThrow(ValidationError);
    await expect(engine.createWorkflow({ ...claims, indexes: [{ name: 'a', type: 'string', expression: 'context.(' }] })).rejects.toThrow(ValidationError);
    await expect(engine.createWorkflow({ ...claims, indexes: [{ name: 'a', type: 'money' as 'string', expression: 'context.x' }] })).rejects.toThrow(ValidationError);
  });

  it('a reindex bulk action indexes the instances of a version that declared no indexes, changing nothing else', async () => {
    const search = new InMemorySearchIndex();
    const engine = engineWith(search);
    const { indexes: _none, ...unindexed } = claims;
    await engine.createWorkflow(unindexed);
    await engine.createInstance({ workflowId: 'claims', instanceId: 'u1', context: { amount: 5 } });
    const before = await engine.getInstance('u1');
    expect(before.search).toBeUndefined();
    const result = await engine.migrationsAndBulkActions.applyBulk('u1', { action: 'reindex', filter: { workflowId: 'claims', workflowVersion: 1 } }, { operationId: 'reindex-1' });
    expect(result.outcome).toBe('reindexed');
    const after = await engine.getInstance('u1');
    expect(after.historyLength).toBe(before.historyLength);
    expect(search.entriesOf('claims', 'u1').map((entry) => entry.split('!')[0])).toEqual(['createdAt', 'stateId', 'status', 'updatedAt']);
    expect((await engine.searchInstances({ workflowId: 'claims', filter: "stateId = 'open'" })).items.map((instance) => instance.id)).toEqual(['u1']);
    // Indexed from then on: its next change keeps the rows.
    await engine.applyTrigger('u1', trigger('Close', { subjects: ['u1'] }));
    expect((await engine.searchInstances({ workflowId: 'claims', filter: "stateId = 'closed'" })).items.map((instance) => instance.id)).toEqual(['u1']);
  });
});
