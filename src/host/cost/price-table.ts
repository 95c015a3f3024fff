/**
 * @module The price table that turns counts into an estimate in money (decision 0021, docs/guides/cost.md).
 * The default holds list prices for one region, with where and when they were taken; SIGNALBOX_PRICE_TABLE
 * (JSON, validated here at start-up, refused with the setting named) replaces any of them, e.g. with the
 * prices of the operator's region, currency or agreement.
 */
import { z } from 'zod';
import { ValidationError, formatPath } from '../../engine/model';
import { storageRequestsOf, type OperationCost } from '../../engine/operations';
import { readSetting, type Environment } from '../settings';

const price = z.number().finite().nonnegative();

export const priceTableSchema = z
  .object({
    /** ISO 4217 code of every price. */
    currency: z.string().regex(/^[A-Z]{3}$/, 'a three-letter currency code (ISO 4217), e.g. USD'),
    region: z.string().min(1).max(100),
    /** When the prices were read (yyyy-mm-dd). */
    takenOn: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date, yyyy-mm-dd'),
    /** Where they were read, or why they are placeholders. */
    source: z.string().min(1).max(1000),
    /** Prices per 10,000 requests of each kind, as the storage price pages list them. */
    per10kRequests: z.object({ tableRead: price, tableQuery: price, tableWrite: price, blobLease: price, blobRead: price, blobWrite: price }).strict(),
    /** Per GB (10^9 bytes) of outbound request bodies (internet egress). */
    perGbSent: price,
    /** Per million durable activities started: the orchestration's own work on its backend, see the guide. */
    perMillionActivities: price,
  })
  .strict();

export type PriceTable = z.output<typeof priceTableSchema>;

/**
 * List prices as published for East US, pay-as-you-go, Standard general-purpose v2, locally redundant (LRS),
 * hot tier. NOT read from the price pages in this session: the build machine reaches no Azure page, so the
 * figures are the ones last known to the authors and are labelled so in `source`. Check them against the
 * pages named there before relying on an estimate, and set SIGNALBOX_PRICE_TABLE with the current ones.
 */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  currency: 'USD',
  region: 'eastus (LRS, hot, pay-as-you-go)',
  takenOn: '2026-12-02',
  source:
    'PLACEHOLDERS, not read from the price pages on takenOn (the build machine reaches no Azure page): the figures last known to the authors, to check before use. Tables, every transaction alike: https://azure.microsoft.com/pricing/details/storage/tables/. Blobs, hot LRS write and read operations (Lease Blob taken as an "other operation", priced as a read): https://azure.microsoft.com/pricing/details/storage/blobs/. Internet egress past the free allowance: https://azure.microsoft.com/pricing/details/bandwidth/. Activities: 0 here, see docs/guides/cost.md for the backend and Functions prices.',
  per10kRequests: { tableRead: 0.00036, tableQuery: 0.00036, tableWrite: 0.00036, blobLease: 0.0052, blobRead: 0.0052, blobWrite: 0.065 },
  perGbSent: 0.087,
  perMillionActivities: 0,
};

/** A partial table over the defaults (per10kRequests merged key by key). */
const overridesSchema = priceTableSchema.extend({ per10kRequests: priceTableSchema.shape.per10kRequests.partial() }).partial().strict();

/** The price table from SIGNALBOX_PRICE_TABLE over the defaults; a bad value throws, naming the setting and the field. */
export function priceTableFromEnv(env: Environment = process.env): PriceTable {
  const text = readSetting('SIGNALBOX_PRICE_TABLE', env);
  if (text === undefined) return DEFAULT_PRICE_TABLE;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`SIGNALBOX_PRICE_TABLE is invalid: not JSON (${error instanceof Error ? error.message : String(error)})`, [{ path: 'SIGNALBOX_PRICE_TABLE', message: 'not JSON' }]);
  }
  const parsed = overridesSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = ['SIGNALBOX_PRICE_TABLE', ...issue.path.map(String)].join('.');
    throw new ValidationError(`SIGNALBOX_PRICE_TABLE is invalid: ${formatPath(issue.path) || 'the value'}: ${issue.message}`, [{ path, message: issue.message }]);
  }
  const { per10kRequests, ...rest } = parsed.data;
  return { ...DEFAULT_PRICE_TABLE, ...rest, per10kRequests: { ...DEFAULT_PRICE_TABLE.per10kRequests, ...per10kRequests } };
}

export interface CostEstimate {
  readonly currency: string;
  /** The whole estimate, and its parts. */
  readonly total: number;
  readonly storage: number;
  readonly outbound: number;
  readonly activities: number;
  /** Storage requests of every kind together. */
  readonly storageRequests: number;
}

/** Rounded to a millionth of the currency unit: the estimate's precision, not the bill's. */
function rounded(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}

export function estimateCost(cost: OperationCost, prices: PriceTable): CostEstimate {
  const storage = (Object.keys(prices.per10kRequests) as (keyof PriceTable['per10kRequests'])[]).reduce((sum, kind) => sum + (cost.storage[kind] * prices.per10kRequests[kind]) / 10_000, 0);
  const outbound = (cost.outbound.bytesSent / 1e9) * prices.perGbSent;
  const activities = (cost.activities / 1e6) * prices.perMillionActivities;
  return {
    currency: prices.currency,
    total: rounded(storage + outbound + activities),
    storage: rounded(storage),
    outbound: rounded(outbound),
    activities: rounded(activities),
    storageRequests: storageRequestsOf(cost),
  };
}
