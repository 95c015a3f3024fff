/**
 * The quotas' mechanisms, without storage: the trigger rate's burst and Retry-After (the token bucket itself is
 * test/outbound/token-bucket.test.ts), the cached
 * count's reads, the gate's refusals, and the settings and per-tenant overrides (outside input, validated).
 */
import { ValidationError } from '../../src/engine/model';
import { CachedCount, DEFAULT_QUOTAS, TenantQuotaGate, quotasFromEnv, resolveQuotas, type QuotaCounts } from '../../src/host/tenant-quotas';

function manualClock(start = 1_000_000) {
  let at = start;
  return { now: () => at, advance: (ms: number) => void (at += ms) };
}

describe('CachedCount', () => {
  it('reads once while fresh and far from the quota, and again before it refuses', async () => {
    const clock = manualClock();
    let stored = 0;
    const reads: number[] = [];
    const count = new CachedCount(async () => (reads.push(clock.now()), stored), clock.now);
    expect(await count.admit(3)).toBe(true);
    expect(await count.admit(3)).toBe(true);
    expect(reads).toHaveLength(1);
    stored = 2;
    // The estimate (0 counted + 2 admitted) is below 3: no read.
    expect(await count.admit(3)).toBe(true);
    expect(reads).toHaveLength(1);
    stored = 3;
    // At the quota on a count just read: refused without another read within a second.
    expect(await count.admit(3)).toBe(false);
    expect(reads).toHaveLength(1);
    clock.advance(CachedCount.RECOUNT_AT_QUOTA_AFTER_IN_MS);
    stored = 1; // two finished meanwhile
    expect(await count.admit(3)).toBe(true);
    expect(reads).toHaveLength(2);
    clock.advance(CachedCount.RECOUNT_AFTER_IN_MS);
    expect(await count.admit(3)).toBe(true);
    expect(reads).toHaveLength(3);
  });
  it('does not make a request wait for a fresh count while the estimate is below the quota', async () => {
    const clock = manualClock();
    let reads = 0;
    const never = new Promise<number>(() => undefined);
    const count = new CachedCount(async () => (++reads === 1 ? 0 : never), clock.now);
    expect(await count.admit(100)).toBe(true);
    clock.advance(CachedCount.RECOUNT_AFTER_IN_MS);
    // The second count never answers: the admission must not wait for it.
    expect(await count.admit(100)).toBe(true);
    expect(reads).toBe(2);
  });
});

describe('TenantQuotaGate', () => {
  it('takes the rate first: a trigger refused for its rate reads no count and is not counted as running', async () => {
    const clock = manualClock();
    let operationCounts = 0;
    const gate = new TenantQuotaGate(
      'acme',
      resolveQuotas(DEFAULT_QUOTAS, { triggersPerSecond: 1, triggerBurst: 1, operationsRunning: 2 }),
      { instancesAlive: async () => 0, operationsRunning: async () => (operationCounts++, 0) },
      clock.now,
    );
    expect(await gate.admitTrigger()).toBeUndefined();
    for (let i = 0; i < 5; i++) expect((await gate.admitTrigger())?.status).toBe(429);
    expect(operationCounts).toBe(1);
    clock.advance(1000);
    // One admitted before, one now: both fit under 2 running, so the refused ones were not counted.
    expect(await gate.admitTrigger()).toBeUndefined();
    expect(operationCounts).toBe(1);
  });

  const counts = (alive: number, running: number): QuotaCounts => ({ instancesAlive: async () => alive, operationsRunning: async () => running });

  it('refuses a trigger over the rate with 429, Retry-After and the tenant named', async () => {
    const clock = manualClock();
    const gate = new TenantQuotaGate('acme', resolveQuotas(DEFAULT_QUOTAS, { triggersPerSecond: 1, triggerBurst: 2 }), counts(0, 0), clock.now);
    expect(await gate.admitTrigger()).toBeUndefined();
    expect(await gate.admitTrigger()).toBeUndefined();
    const refused = await gate.admitTrigger();
    expect(refused).toMatchObject({ status: 429, headers: { 'retry-after': '1', 'content-type': 'application/problem+json' }, body: { status: 429, title: 'Too many requests' } });
    expect((refused!.body as { detail: string }).detail).toMatch(/Tenant "acme" sends more than 1 triggers per second \(burst 2\); nothing was recorded/);
  });

  it('asks for the whole seconds until the next token, refilled over a quiet spell', async () => {
    const clock = manualClock();
    const gate = new TenantQuotaGate('acme', resolveQuotas(DEFAULT_QUOTAS, { triggersPerSecond: 0.1, triggerBurst: 1 }), counts(0, 0), clock.now);
    expect(await gate.admitTrigger()).toBeUndefined();
    expect((await gate.admitTrigger())?.headers?.['retry-after']).toBe('10');
    clock.advance(2500);
    expect((await gate.admitTrigger())?.headers?.['retry-after']).toBe('8');
    clock.advance(7500);
    expect(await gate.admitTrigger()).toBeUndefined();
  });

  it('refuses an operation beyond the operations running with 429, and an instance beyond those alive with 409', async () => {
    const gate = new TenantQuotaGate('acme', resolveQuotas(DEFAULT_QUOTAS, { operationsRunning: 4, instancesAlive: 10 }), counts(10, 4));
    expect(await gate.admitOperation()).toMatchObject({ status: 429, headers: { 'retry-after': '1' } });
    expect(await gate.admitTrigger()).toMatchObject({ status: 429 });
    const instance = await gate.admitInstance();
    expect(instance).toMatchObject({ status: 409, body: { title: 'Quota exceeded' } });
    expect(instance!.headers!['retry-after']).toBeUndefined();
  });
});

describe('quota settings and overrides', () => {
  it('default to DEFAULT_QUOTAS and take the SIGNALBOX_QUOTA_* settings', () => {
    expect(quotasFromEnv({})).toEqual(DEFAULT_QUOTAS);
    expect(quotasFromEnv({ SIGNALBOX_QUOTA_TRIGGERS_PER_SECOND: '0.5', SIGNALBOX_QUOTA_TRIGGER_BURST: '7', SIGNALBOX_QUOTA_INSTANCES_ALIVE: ' ', SIGNALBOX_QUOTA_OPERATIONS_RUNNING: '3' })).toEqual({
      ...DEFAULT_QUOTAS,
      triggersPerSecond: 0.5,
      triggerBurst: 7,
      operationsRunning: 3,
    });
  });

  it('name the setting that is not a number in range', () => {
    expect(() => quotasFromEnv({ SIGNALBOX_QUOTA_TRIGGER_BURST: 'lots' })).toThrow(/SIGNALBOX_QUOTA_TRIGGER_BURST is invalid/);
    expect(() => quotasFromEnv({ SIGNALBOX_QUOTA_INSTANCES_ALIVE: '0' })).toThrow(/SIGNALBOX_QUOTA_INSTANCES_ALIVE is invalid/);
  });

  it("take a tenant's overrides over the defaults, refusing unknown names and bad values by field", () => {
    expect(resolveQuotas(DEFAULT_QUOTAS, { instancesAlive: 5, fanOutBatches: 2 })).toEqual({ ...DEFAULT_QUOTAS, instancesAlive: 5, fanOutBatches: 2 });
    expect(resolveQuotas(DEFAULT_QUOTAS, { applicationsPerSecond: 20 }).applicationsPerSecond).toBe(20);
    const refusal = (overrides: Record<string, number>) => {
      try {
        resolveQuotas(DEFAULT_QUOTAS, overrides);
      } catch (error) {
        return error instanceof ValidationError ? error.issues.map((issue) => issue.path) : error;
      }
      return 'accepted';
    };
    expect(refusal({ instancesAlve: 5 })).toEqual(['instancesAlve']);
    expect(refusal({ fanOutBatches: 9 })).toEqual(['fanOutBatches']);
    expect(refusal({ triggerBurst: 1.5 })).toEqual(['triggerBurst']);
    expect(refusal({ applicationsPerSecond: 0 })).toEqual(['applicationsPerSecond']);
  });
});
