/** The filter language, the planner and searches on in-memory ports: answers re-checked, hostile filters refused with a position. */
import { Engine, ValidationError, parseFilter } from '../../../src/engine';
import { InMemorySearchIndex, createInMemoryPorts } from '../../../src/testing';
import { FakeClock, recordingLogger, trigger } from '../support';
import { claims } from './claims-workflow';

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.message;
    throw error;
  }
  throw new Error('no error');
}

describe('the filter language', () => {
  it('parses comparisons, between, in, startsWith, and, or, not and parentheses', () => {
    expect(parseFilter("amount > 1000 and (stateId = 'open' or not region startsWith 'no') and tags in ('a', 'b') and updatedAt between '2026-01-01' and '2026-12-31'")).toMatchObject({
      kind: 'and',
      items: [
        { kind: 'compare', field: 'amount', operator: '>', value: 1000, position: 1 },
        {
          kind: 'or',
          items: [
            { kind: 'compare', field: 'stateId' },
            { kind: 'not', item: { kind: 'startsWith', field: 'region', prefix: 'no' } },
          ],
        },
        { kind: 'in', field: 'tags', values: ['a', 'b'] },
        { kind: 'between', field: 'updatedAt', low: '2026-01-01', high: '2026-12-31' },
      ],
    });
    expect(parseFilter("name = 'O''Brien'")).toMatchObject({ value: "O'Brien" });
  });

  it('points at the position of a syntax error', () => {
    expect(messageOf(() => parseFilter('amount > '))).toBe("filter: position 10: expected a value ('text', a number, true or false), found the end");
    expect(messageOf(() => parseFilter("amount = 'x"))).toBe('filter: position 10: the string is not closed');
    expect(messageOf(() => parseFilter('amount = 1 amount'))).toBe('filter: position 12: expected "and", "or" or the end, found "amount"');
    expect(messageOf(() => parseFilter('(amount = 1'))).toBe('filter: position 12: expected ")", found the end');
    expect(messageOf(() => parseFilter('amount ~ 1'))).toBe('filter: position 8: unexpected character "~"');
  });

  it('refuses hostile filters: deep nesting, 10,000 terms, a huge input', () => {
    expect(messageOf(() => parseFilter(`${'('.repeat(5000)}a = 1${')'.repeat(5000)}`))).toMatch(/^filter: position 2049: longer than/);
    expect(messageOf(() => parseFilter(`${'('.repeat(100)}a = 1${')'.repeat(100)}`))).toBe('filter: position 17: nested more than 16 levels deep');
    expect(messageOf(() => parseFilter(`${'not '.repeat(40)}a = 1`))).toMatch(/nested more than 16 levels deep/);
    expect(messageOf(() => parseFilter(Array.from({ length: 10_000 }, () => 'a = 1').join(' or ')))).toMatch(/longer than 2048/);
    expect(messageOf(() => parseFilter(Array.from({ length: 40 }, () => 'a=1').join(' or ')))).toMatch(/more than 32 conditions/);
  });
});

describe('searches', () => {
  async function seeded() {
    const search = new InMemorySearchIndex();
    const ports = { ...createInMemoryPorts(), search };
    const clock = new FakeClock();
    const engine = new Engine(ports, { clock, logger: recordingLogger(), searchHmacKey: 'k'.repeat(32) });
    await engine.createWorkflow(claims);
    const regions = ['North', 'South', 'East'];
    for (let index = 0; index < 30; index++) {
      await engine.createInstance({
        workflowId: 'claims',
        instanceId: `c${String(index).padStart(2, '0')}`,
        businessKey: `INV-${index}`,
        context: { amount: index * 100, region: regions[index % 3]!, tags: index % 2 ? ['odd'] : ['even', 'x'], iban: `DE${index}` },
      });
    }
    return { engine, search, ports, clock };
  }

  it('answers with the plan: an equality on a declared field is read as one range', async () => {
    const { engine } = await seeded();
    const page = await engine.searchInstances({ workflowId: 'claims', filter: "amount > 1000 and region = 'north' and stateId = 'open'" });
    expect(page.items.map((instance) => instance.id)).toEqual(['c12', 'c15', 'c18', 'c21', 'c24', 'c27']);
    expect(page.explain.index).toMatchObject({ field: 'region', condition: "region = 'north'" });
    expect(page.explain.storageRequests).toMatchObject({ indexPages: 1, indexRows: 10, instanceReads: 10 });
  });

  it('ranges, between, startsWith, in, not, or, keyword and sensitive equality', async () => {
    const { engine } = await seeded();
    const ids = async (filter: string, orderBy?: string) =>
      (await engine.searchInstances({ workflowId: 'claims', filter, ...(orderBy ? { orderBy } : {}) }, { maxPageSize: 1000 })).items.map((instance) => instance.id);
    expect(await ids('amount between 100 and 300')).toEqual(['c01', 'c02', 'c03']);
    expect(await ids('amount < 200 or amount >= 2800')).toEqual(['c00', 'c01', 'c28', 'c29']);
    expect(await ids("businessKey startsWith 'INV-2' and not amount > 2200")).toEqual(['c02', 'c20', 'c21', 'c22']);
    expect(await ids("businessKey in ('INV-3', 'INV-4')")).toEqual(['c03', 'c04']);
    expect(await ids("tags = 'x' and amount < 500")).toEqual(['c00', 'c02', 'c04']);
    expect(await ids("iban = 'DE7'")).toEqual(['c07']);
    expect(await ids('amount <= 300', 'amount desc')).toEqual(['c03', 'c02', 'c01', 'c00']);
  });

  it('refuses unknown fields, wrong types and ranges on sensitive fields, pointing at them', async () => {
    const { engine } = await seeded();
    const refused = (filter: string) =>
      engine.searchInstances({ workflowId: 'claims', filter }).then(
        () => 'answered',
        (error: Error) => error.message,
      );
    expect(await refused("stateId = 'open' and amout > 5")).toBe('filter: position 22: unknown field "amout" (did you mean "amount"?)');
    expect(await refused("amount > '5'")).toBe('filter: position 1: "amount" is a number: "5" is not a number');
    expect(await refused('updatedAt > 5')).toBe('filter: position 1: "updatedAt" is a datetime: 5 is not an ISO 8601 date-time in quotes');
    expect(await refused("iban > 'DE'")).toBe('filter: position 1: "iban" is sensitive: only =, != and in can be asked of it');
  });

  it('counts, grouped by state, status or a keyword', async () => {
    const { engine } = await seeded();
    await engine.applyTrigger('c01', trigger('Close', { subjects: ['c01'] }));
    expect(await engine.countInstances({ workflowId: 'claims', filter: 'amount < 1000' })).toMatchObject({ count: 10 });
    expect((await engine.countInstances({ workflowId: 'claims', groupBy: 'stateId' })).groups).toEqual([
      { key: 'open', count: 29 },
      { key: 'closed', count: 1 },
    ]);
    expect((await engine.countInstances({ workflowId: 'claims', groupBy: 'tags', filter: 'amount < 400' })).groups).toEqual([
      { key: 'even', count: 2 },
      { key: 'odd', count: 2 },
      { key: 'x', count: 2 },
    ]);
  });

  it('counts from the index rows: no instance read when every instance holds one row per field', async () => {
    const { engine } = await seeded();
    const byState = await engine.countInstances({ workflowId: 'claims', groupBy: 'stateId' });
    expect(byState).toMatchObject({ count: 30, groups: [{ key: 'open', count: 30 }] });
    expect(byState.explain.storageRequests).toMatchObject({ indexPages: 1, indexRows: 30, instanceReads: 0 });
    expect(byState.explain.counted).toMatch(/^from the index rows of stateId/);
    const ranged = await engine.countInstances({ workflowId: 'claims', filter: "amount < 1000 and region = 'north'", groupBy: 'tags' });
    expect(ranged).toMatchObject({
      count: 4,
      groups: [
        { key: 'even', count: 2 },
        { key: 'odd', count: 2 },
        { key: 'x', count: 2 },
      ],
    });
    expect(ranged.explain.storageRequests.instanceReads).toBe(0);
  });

  it('counts: an instance with conflicting rows (a stale one, or one a crash left) is read, so it is counted as it is', async () => {
    const { engine, search, clock } = await seeded();
    clock.advance(1000);
    // c02 moves from 200 to 5000: its old row stays until its next save (two amount and updatedAt rows).
    await engine.applyTrigger('c02', trigger('Raise', { subjects: ['c02'], parameters: { amount: 5000 } }));
    clock.advance(1000);
    // c04 loses its amount: a lone stale amount row, told apart by its two updatedAt rows.
    await engine.applyTrigger('c04', trigger('Raise', { subjects: ['c04'], parameters: { amount: null } }));
    // c05: a stateId row of a save that never happened (the process died between the rows and the save).
    const c05 = await engine.getInstance('c05');
    await search.write('claims', 'c05', { add: [`stateId!s${Buffer.from('closed').toString('hex')}`], remove: [], ...(c05.incarnation ? { incarnation: c05.incarnation } : {}) });
    const cheap = await engine.countInstances({ workflowId: 'claims', filter: 'amount < 1000' });
    expect(cheap.count).toBe(8);
    expect(cheap.explain.storageRequests.instanceReads).toBe(2);
    const byState = await engine.countInstances({ workflowId: 'claims', groupBy: 'stateId' });
    expect(byState.groups).toEqual([{ key: 'open', count: 30 }]);
    expect(byState.explain.storageRequests.instanceReads).toBe(1);
  });

  it('never answers with an instance that does not match as read (a stale row is re-checked)', async () => {
    const { engine, search } = await seeded();
    // A row the instance no longer holds, as a crash between the index write and the save leaves it.
    await search.write('claims', 'c05', { add: ['amount!n' + 'f'.repeat(16)], remove: [] });
    expect((await engine.searchInstances({ workflowId: 'claims', filter: 'amount > 100000000' })).items).toEqual([]);
  });
});
