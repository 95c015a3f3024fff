/**
 * `npm run bench:request-cost`: the CPU this process spends per storage request, through the table
 * client Signalbox makes (src/storage/connection.ts) and, for comparison, through bare `node:http` with
 * the same SharedKeyLite signature, on a fresh Azurite, one request at a time (BENCH_REQUESTS, default
 * 2000, after 200 to warm up). It tells how much of a trigger's server CPU is the SDK's request path and
 * not Signalbox. Prints the figures; asserts nothing.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { startAzurite } from '../src/host/local/azurite';
import { createTableClient, expandDevelopmentStorage } from '../src/storage/connection';
import { AZURITE_ACCOUNT_KEY, AZURITE_ACCOUNT_NAME } from '../src/storage/development-storage';
import { loadAverage, runBench } from './support/bench-support';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);

async function cpuPerCall(count: number, work: (index: number) => Promise<unknown>): Promise<string> {
  for (let index = 0; index < 200; index += 1) await work(index);
  const before = process.cpuUsage();
  for (let index = 0; index < count; index += 1) await work(index);
  const used = process.cpuUsage(before);
  return `${((used.user + used.system) / 1000 / count).toFixed(3)} ms`;
}

async function main(): Promise<void> {
  const azurite = await startAzurite();
  try {
    const connectionString = expandDevelopmentStorage(azurite.connectionString);
    const table = createTableClient({ kind: 'connectionString', connectionString }, 'requestCost');
    await table.createTable();
    const body = 'x'.repeat(650); // as large as the counter example's instance body
    await table.upsertEntity({ partitionKey: 'p', rowKey: 'r', body });

    // A point read through node:http alone: keep-alive agent, SharedKeyLite, JSON.parse of the entity.
    const url = new URL(`${/TableEndpoint=([^;]+)/.exec(connectionString)![1]}/requestCost(PartitionKey='p',RowKey='r')`);
    const agent = new http.Agent({ keepAlive: true });
    const key = Buffer.from(AZURITE_ACCOUNT_KEY, 'base64');
    const bareRead = () =>
      new Promise<void>((resolve, reject) => {
        const date = new Date().toUTCString();
        const signature = createHmac('sha256', key).update(`${date}\n/${AZURITE_ACCOUNT_NAME}${url.pathname}`, 'utf8').digest('base64');
        const headers = { 'x-ms-date': date, 'x-ms-version': '2019-02-02', accept: 'application/json;odata=nometadata', authorization: `SharedKeyLite ${AZURITE_ACCOUNT_NAME}:${signature}` };
        const request = http.request(url, { agent, headers }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => (response.statusCode === 200 ? (JSON.parse(text), resolve()) : reject(new Error(`${response.statusCode} ${text}`))));
        });
        request.on('error', reject);
        request.end();
      });

    const rows = [
      { request: 'point read, SDK (getEntity)', 'CPU per request': await cpuPerCall(REQUESTS, () => table.getEntity('p', 'r')) },
      { request: 'point read, bare node:http', 'CPU per request': await cpuPerCall(REQUESTS, bareRead) },
      { request: 'upsert (Replace), SDK', 'CPU per request': await cpuPerCall(REQUESTS, (index) => table.upsertEntity({ partitionKey: 'p', rowKey: `u${index % 50}`, body }, 'Replace')) },
      {
        request: 'transaction of one upsert, SDK (submitTransaction)',
        'CPU per request': await cpuPerCall(REQUESTS, (index) => table.submitTransaction([['upsert', { partitionKey: 'p', rowKey: `t${index % 50}`, body }, 'Replace']])),
      },
      {
        request: 'transaction of two upserts, SDK',
        'CPU per request': await cpuPerCall(REQUESTS, (index) =>
          table.submitTransaction([
            ['upsert', { partitionKey: 'p', rowKey: `t${index % 50}`, body }, 'Replace'],
            ['upsert', { partitionKey: 'p', rowKey: `h${index % 50}`, body: '{}' }, 'Replace'],
          ]),
        ),
      },
    ];
    console.log(`\nCPU of this process per storage request, ${REQUESTS} one at a time; load average ${loadAverage()}`);
    console.table(rows);
  } finally {
    await azurite.stop();
  }
}

runBench(main);
