/**
 * A deployment without SIGNALBOX_INDEX_HMAC_KEY leaves sensitive fields unindexed: a search or a count
 * naming one is refused as the caller's problem (a ValidationError, 400 over HTTP) naming the field and
 * the setting, never a crash of the key import (a 500). Searches on the other fields still answer.
 */
import { Engine, ValidationError } from '../../../src/engine';
import { InMemorySearchIndex, createInMemoryPorts } from '../../../src/testing';
import { FakeClock, recordingLogger } from '../support';
import { claims } from './claims-workflow';

async function engineWithoutKey(): Promise<Engine> {
  const engine = new Engine({ ...createInMemoryPorts(), search: new InMemorySearchIndex() }, { clock: new FakeClock(), logger: recordingLogger() });
  await engine.createWorkflow(claims);
  for (let index = 0; index < 3; index++) {
    await engine.createInstance({ workflowId: 'claims', instanceId: `c${index}`, context: { amount: index * 100, region: 'North', iban: `DE${index}` } });
  }
  return engine;
}

async function refusal(run: () => Promise<unknown>): Promise<ValidationError> {
  const error = await run().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ValidationError)) throw new Error(`expected a ValidationError, got ${String(error)}`);
  return error;
}

describe('a sensitive field without an index key', () => {
  it.each(["iban = 'DE1'", "iban != 'DE1'", "iban in ('DE1', 'DE2')", "amount > 0 and (iban = 'DE1' or region = 'north')"])(
    'a search on it is refused, naming the field, its position and the setting: %s',
    async (filter) => {
      const engine = await engineWithoutKey();
      const error = await refusal(() => engine.searchInstances({ workflowId: 'claims', filter }));
      const position = filter.indexOf('iban') + 1;
      expect(error.message).toBe(`filter: position ${position}: "iban" is sensitive and this deployment has no index key (SIGNALBOX_INDEX_HMAC_KEY): it cannot be searched`);
      expect(error.issues).toEqual([{ path: 'filter', message: expect.stringContaining('SIGNALBOX_INDEX_HMAC_KEY') }]);
    },
  );

  it('a count filtered on it is refused the same way', async () => {
    const engine = await engineWithoutKey();
    const error = await refusal(() => engine.countInstances({ workflowId: 'claims', filter: "iban = 'DE1'" }));
    expect(error.message).toMatch(/"iban" is sensitive and this deployment has no index key \(SIGNALBOX_INDEX_HMAC_KEY\)/);
  });

  it('searches on the other fields still answer', async () => {
    const engine = await engineWithoutKey();
    const page = await engine.searchInstances({ workflowId: 'claims', filter: 'amount >= 100' });
    expect(page.items.map((instance) => instance.id)).toEqual(['c1', 'c2']);
  });
});
