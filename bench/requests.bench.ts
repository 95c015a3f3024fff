/**
 * `npm run bench:requests`: the storage requests of one trigger, counted through the local server on
 * Azurite (each after a warm-up trigger of the same shape), for the shapes docs/performance.md lists:
 * to one instance by subject, to ten instances by one subject, to one instance by its own route, and
 * one whose transition raises a trigger to another instance (its own operation, counted until the
 * raised one has been applied and every lease released). Counts, not times: the machine's load does
 * not change them. Prints a table and each request in order; asserts nothing.
 */
import { startAzurite } from '../src/host/local/azurite';
import { startLocalHost } from '../src/host/local/local-host';
import { silentLogger } from '../src/host/local/logger';
import { prefixedStorageNames } from '../src/storage/names';
import { createRequestCounter } from '../src/storage/request-counter';
import { runBench } from './support/bench-support';

type Json = any;
const WAIT = { prefer: 'wait=30' };

const increment = {
  id: 'increment',
  targetStateId: 'counting',
  conditions: [{ type: 'triggerName', name: 'Increment' }],
  actions: [{ type: 'setContext', expressions: { count: 'context.count + 1' } }],
};
const counter = { id: 'counter', displayName: 'Counter', initialStateId: 'counting', states: { counting: { interests: ['counters'], transitions: [increment] } } };
const relay = {
  id: 'relay',
  displayName: 'Relay',
  initialStateId: 'counting',
  states: {
    counting: {
      transitions: [
        {
          ...increment,
          id: 'relay',
          conditions: [{ type: 'triggerName', name: 'Relay' }],
          actions: [...increment.actions, { type: 'raiseTrigger', trigger: { name: 'Increment', subjects: ['{{context.partner}}'] } }],
        },
      ],
    },
  },
};

async function main(): Promise<void> {
  const azurite = await startAzurite();
  const requestCounter = createRequestCounter();
  const host = await startLocalHost({ env: { SIGNALBOX_STORAGE: azurite.connectionString }, port: 0, storageNames: prefixedStorageNames('req'), logger: silentLogger, requestCounter });
  const call = async (path: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}): Promise<Json> => {
    const response = await fetch(`${host.url}${path}`, {
      method,
      headers: { 'x-signalbox-client': 'bench', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return text ? JSON.parse(text) : undefined;
  };
  /** Waits until no request has been sent for a while (a lease release, a relayed trigger run after the answer). */
  const settled = async (): Promise<void> => {
    let last = -1;
    while (requestCounter.counts().total !== last) {
      last = requestCounter.counts().total;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  const rows: { trigger: string; requests: number; byKind: string }[] = [];
  const listings: string[] = [];
  const measure = async (label: string, send: (round: number) => Promise<unknown>): Promise<void> => {
    await send(0); // warm: what a process does once per instance
    await settled();
    requestCounter.reset();
    await send(1);
    await settled();
    const counts = requestCounter.counts();
    rows.push({ trigger: label, requests: counts.total, byKind: JSON.stringify(counts.byKind) });
    listings.push(`${label}:`, ...requestCounter.requests().map((request) => `  ${request}`));
  };
  try {
    await call('/api/workflows/counter', 'PUT', counter);
    await call('/api/workflows/relay', 'PUT', relay);
    for (let index = 0; index < 10; index += 1) await call('/api/instances', 'POST', { workflowId: 'counter', instanceId: `c-${index}`, context: { count: 0 } });
    await call('/api/instances', 'POST', { workflowId: 'relay', instanceId: 'relay-1', context: { count: 0, partner: 'c-0' } });
    await call('/api/workflows/ten', 'PUT', { ...counter, id: 'ten', states: { counting: { interests: ['ten'], transitions: [increment] } } });
    for (let index = 0; index < 10; index += 1) await call('/api/instances', 'POST', { workflowId: 'ten', instanceId: `t-${index}`, context: { count: 0 } });

    await measure('to one instance by subject (POST /api/triggers, Prefer: wait)', () => call('/api/triggers', 'POST', { name: 'Increment', subjects: ['c-1'] }, WAIT));
    await measure('to ten instances by one subject (Prefer: wait)', () => call('/api/triggers', 'POST', { name: 'Increment', subjects: ['ten'] }, WAIT));
    await measure('to one instance by its route (POST /api/instances/{id}/triggers, Prefer: wait)', () => call('/api/instances/c-2/triggers', 'POST', { name: 'Increment' }, WAIT));
    await measure('to one instance that raises a trigger to another (both operations)', () => call('/api/triggers', 'POST', { name: 'Relay', subjects: ['relay-1'] }, WAIT));
    console.table(rows);
    console.log(listings.join('\n'));
  } finally {
    await host.stop();
    await azurite.stop();
  }
}

runBench(main);
