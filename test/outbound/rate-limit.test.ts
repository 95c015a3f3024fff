/**
 * `flow.rateLimits` on outbound calls, against a real local HTTP server, on a manual clock (the limiter's
 * waits advance it; nothing sleeps on the wall clock): a call over the limit waits for a slot within the
 * step's time limit (the decision trace says so), a slot further away than that fails the attempt as a
 * timeout before anything is sent, buckets are per host or per key's value, and bad declarations are refused.
 */
import { ValidationError, validateDefinition, type JsonObject, type WorkflowDefinitionInput } from '../../src/engine';
import { RateLimiter, type RateLimiterClock } from '../../src/outbound';
import { instanceIn, json, processTrigger, startServer, testEffects, trigger } from '../engine/support';
import { localHttp } from './support';

type Server = Awaited<ReturnType<typeof startServer>>;
let server: Server;

beforeAll(async () => {
  server = await startServer((_request, response) => json(response, 200, {}));
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

/** A clock whose sleeps advance it at once, recording each. */
function manualClock(): RateLimiterClock & { sleeps: number[]; ms: number } {
  const clock = {
    ms: 0,
    sleeps: [] as number[],
    now: () => clock.ms,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
      clock.ms += ms;
    },
  };
  return clock;
}

function workflow(flow: WorkflowDefinitionInput['flow'], timeoutMs?: number): WorkflowDefinitionInput {
  return {
    id: 'limited',
    displayName: 'Limited',
    initialStateId: 'a',
    flow,
    states: {
      a: {
        transitions: [
          {
            id: 'go',
            targetStateId: 'a',
            conditions: [{ type: 'triggerName', name: 'Go' }],
            actions: [{ id: 'call', type: 'invokeExternalService', url: `${server.url}/partner`, ...(timeoutMs ? { timeoutMs } : {}) }],
          },
        ],
      },
    },
  };
}

async function callOnce(flow: WorkflowDefinitionInput['flow'], limiter: RateLimiter, context: JsonObject = {}, timeoutMs?: number) {
  const def = validateDefinition(workflow(flow, timeoutMs));
  const http = await localHttp({ rateLimiter: limiter });
  return processTrigger(def, instanceIn(def, 'a', { context }), trigger('Go'), testEffects({ http }));
}

describe('flow.rateLimits', () => {
  it('lets a burst through at once, then spaces calls at the sustained rate, each wait in the decision trace', async () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ clock });
    const flow = { rateLimits: [{ host: '127.0.0.1', limit: 2, periodMs: 1000 }] };
    const outcomes = [];
    for (let call = 0; call < 4; call++) outcomes.push(await callOnce(flow, limiter));
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['transitioned', 'transitioned', 'transitioned', 'transitioned']);
    expect(server.requests).toHaveLength(4);
    // Two at once (burst = limit), then one slot per 500 ms.
    expect(clock.sleeps).toEqual([500, 500]);
    expect(outcomes[0]!.result.trace ?? []).not.toContainEqual(expect.objectContaining({ detail: expect.stringContaining('throttled') }));
    expect(outcomes[2]!.result.trace).toContainEqual(
      expect.objectContaining({ path: 'states.a.transitions[0].actions[0]', result: true, detail: 'throttled: rate limit host:127.0.0.1 (2 per 1000 ms, burst 2) is full; waited 500 ms for a slot' }),
    );
  });

  it("fails the attempt as a timeout, sending nothing, when the next slot is further away than the step's time limit", async () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ clock });
    const flow = { rateLimits: [{ host: '127.0.0.1', limit: 1, periodMs: 60_000 }] };
    expect((await callOnce(flow, limiter, {}, 1000)).outcome).toBe('transitioned');
    const refused = await callOnce(flow, limiter, {}, 1000);
    expect(refused.outcome).toBe('faulted');
    expect(refused.instance.fault?.message).toContain('rate limit host:127.0.0.1 (1 per 60000 ms, burst 1) has its next slot in 60000 ms, past the time limit of 1000 ms');
    expect(server.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    // The refused attempt took no slot: once the period has passed, one call goes at once.
    clock.ms += 60_000;
    expect((await callOnce(flow, limiter, {}, 1000)).outcome).toBe('transitioned');
    expect(clock.sleeps).toEqual([]);
  });

  it("keeps one bucket per key's value; a limit for another host does not apply", async () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ clock });
    const flow = {
      rateLimits: [
        { key: 'context.customerId', limit: 1, periodMs: 1000 },
        { host: 'partner.example.com', limit: 1, periodMs: 3_600_000 },
      ],
    };
    await callOnce(flow, limiter, { customerId: 'ann' });
    await callOnce(flow, limiter, { customerId: 'bob' });
    expect(clock.sleeps).toEqual([]);
    const again = await callOnce(flow, limiter, { customerId: 'ann' });
    expect(clock.sleeps).toEqual([1000]);
    expect(again.result.trace).toContainEqual(expect.objectContaining({ detail: expect.stringContaining('rate limit key:ann') }));
    // No customer: the keyed limit does not apply.
    await callOnce(flow, limiter, {});
    expect(clock.sleeps).toEqual([1000]);
    expect(server.requests).toHaveLength(4);
  });

  it('refuses declarations naming neither host nor key, or with a bad limit, naming the field', () => {
    expect(() => validateDefinition(workflow({ rateLimits: [{ limit: 1, periodMs: 1000 }] }))).toThrow(ValidationError);
    try {
      validateDefinition(workflow({ rateLimits: [{ host: 'a.example', limit: 0, periodMs: 1000 }] }));
      throw new Error('not refused');
    } catch (error) {
      expect((error as ValidationError).issues).toContainEqual(expect.objectContaining({ path: 'flow.rateLimits[0].limit' }));
    }
  });
});
