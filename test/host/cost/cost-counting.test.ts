/**
 * SIGNALBOX_COST_COUNTING (decision 0021): `off` records no cost on operations or instances and keeps no
 * daily sums (the CPU of counting saved); anything but `on` or `off` stops the start-up naming the setting.
 */
import { costCountingFromEnv } from '../../../src/host/cost/cost-scope';
import { startTestHost, type TestHost } from '../../support/local-host';
import { startInMemoryTestHost } from '../../support/in-memory-host';

describe('SIGNALBOX_COST_COUNTING', () => {
  it('is on by default, and takes on or off only', async () => {
    expect(costCountingFromEnv({})).toBe(true);
    expect(costCountingFromEnv({ SIGNALBOX_COST_COUNTING: 'off' })).toBe(false);
    expect(() => costCountingFromEnv({ SIGNALBOX_COST_COUNTING: 'no' })).toThrow('SIGNALBOX_COST_COUNTING');
    await expect(startInMemoryTestHost({ env: { SIGNALBOX_COST_COUNTING: 'false' } })).rejects.toThrow('SIGNALBOX_COST_COUNTING');
  });

  describe('off', () => {
    let test: TestHost;
    beforeAll(async () => {
      test = await startTestHost('costoff', { env: { SIGNALBOX_COST_COUNTING: 'off' } });
    });
    afterAll(async () => {
      await test?.host.stop();
    });

    it('records no cost on the operation or the instance, and sums none', async () => {
      const workflow = {
        id: 'uncounted',
        displayName: 'Uncounted',
        initialStateId: 'a',
        states: { a: { transitions: [{ id: 'go', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Go' }] }] }, b: {} },
      };
      expect((await test.api.request('PUT', '/api/workflows/uncounted', { json: workflow })).status).toBe(201);
      expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'uncounted', instanceId: 'u-1' } })).status).toBe(201);
      const answer = await test.api.request('POST', '/api/instances/u-1/triggers', { json: { name: 'Go' }, headers: { prefer: 'wait=10' } });
      expect(answer.body).toMatchObject({ status: 'succeeded', summary: { transitioned: 1 } });
      expect(answer.body.cost).toBeUndefined();
      expect((await test.api.request('GET', '/api/instances/u-1')).body).toMatchObject({ stateId: 'b' });
      expect((await test.api.request('GET', '/api/instances/u-1')).body.cost).toBeUndefined();
      expect((await test.api.request('GET', '/api/workflows/uncounted/cost')).body).toMatchObject({ operations: 0, days: [] });
    });
  });
});
