/**
 * The seeded data of `bench:search`, prepared once per size as an Azurite data folder and reused.
 *
 * Why: Azurite keeps a table in one LokiJS collection indexed on PartitionKey and on RowKey, and finds
 * an entity by `findOne({ PartitionKey, RowKey })`, which LokiJS runs as the PartitionKey index's whole
 * range (every row of the partition) filtered by RowKey. Every insert and upsert does that (an upsert
 * twice), so writing a row costs time in proportion to its partition's size, and a partition of n rows
 * costs n² to fill: the search rows of one workflow are one partition (800,000 rows at 100,000
 * instances with 4 declared indexes). Measured (in-memory Azurite, a 100-row upsert transaction): 117 ms
 * into a partition of 10,000 rows, 1.5 s at 20,000, 5.1 s at 40,000, and 50 ms into a new partition of
 * the same table at 41,000 rows.
 *
 * So the search rows are written, through the same store and requests as bench/search.bench.ts always
 * did, into one partition per SEED_CHUNK instances (a workflow id `<workflow>~<chunk>`), while Azurite
 * persists to a data folder; then the partitions are joined in Azurite's own saved database (each row's
 * PartitionKey set to the workflow's, the PartitionKey index rebuilt by LokiJS itself). Nothing else in
 * a row changes, and the instance rows are written as before (one partition per instance: no n²).
 * Azurite saves its whole database as one JSON string, which V8 bounds at 512 MiB: at 100,000 instances
 * the data is about 480 MB (the search rows 355, the instance rows 110; see search.bench.ts for what is
 * left out).
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { azuriteConnectionString, freePort, type RunningAzurite } from '../src/host/local/azurite';
import { encodeKey } from '../src/storage/keys';

/** Instances whose search rows share one partition while seeding: 4,000 rows, where a row costs about 1 ms. */
export const SEED_CHUNK = 500;
/** Azurite's table database in its data folder (azurite/dist/src/table/utils/constants.js). */
const TABLE_DB = '__azurite_db_table__.json';
/** Written once the seeding Azurite has saved its database (a stopped preparation resumes at the join). */
const SEEDED = 'signalbox-bench-seeded.json';
/** Written last: the folder is complete. */
const READY = 'signalbox-bench-ready.json';

/** The workflow id the search rows of `chunk` are written under while seeding. */
export function chunkWorkflowId(workflowId: string, chunk: number): string {
  return `${workflowId}~${chunk}`;
}

/** The folder of a prepared size: BENCH_SEARCH_DATA, or one under the system's temporary folder. */
export function dataFolder(instances: number, version: string): string {
  return process.env.BENCH_SEARCH_DATA ?? path.join(os.tmpdir(), `signalbox-bench-search-${instances}-${version}`);
}

export function isPrepared(folder: string): boolean {
  return existsSync(path.join(folder, READY));
}

/**
 * Seeds a fresh data folder through `seed` (given a running Azurite persisting to it), then joins the
 * chunks' search partitions into `workflowId`'s partition in the saved database.
 */
export async function prepare(folder: string, searchTable: string, workflowId: string, seed: (azurite: RunningAzurite) => Promise<void>): Promise<void> {
  if (!existsSync(path.join(folder, SEEDED))) {
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder, { recursive: true });
    const azurite = await startAzuriteOn(folder);
    try {
      await seed(azurite);
    } finally {
      // Saves the database as it stops.
      await azurite.stop();
    }
    await writeFile(path.join(folder, SEEDED), '{}');
  }
  const started = performance.now();
  const rows = await joinPartitions(path.join(folder, TABLE_DB), searchTable, workflowId);
  console.log(`  joined ${rows} search rows into one partition in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await writeFile(path.join(folder, READY), JSON.stringify({ preparedAt: new Date().toISOString(), searchRows: rows }));
}

/**
 * Azurite on the data folder `folder`, as startAzurite runs it, but its database is saved once, as it
 * stops, instead of every 5 s (LokiJS's autosave, turned off in its process: saving a database of
 * hundreds of MB every 5 s would take most of Azurite's time, which the in-memory Azurite of
 * startAzurite never spends), its stop waits for that save however long it takes (startAzurite's stop
 * kills after 3 s), it may take minutes to load the database, and it has the heap to hold it.
 */
export async function startAzuriteOn(folder: string): Promise<RunningAzurite> {
  const ports = { blobPort: await freePort(), queuePort: await freePort(), tablePort: await freePort() };
  const bin = path.join(path.dirname(require.resolve('azurite/package.json')), 'dist', 'src', 'azurite.js');
  const launcher = `
    const Loki = require(require.resolve('lokijs', { paths: [process.env.SIGNALBOX_AZURITE_DIR] }));
    Loki.prototype.autosaveEnable = function () {};
    process.channel?.unref(); // the channel must not keep Azurite alive once it has shut down
    process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
    require(process.env.SIGNALBOX_AZURITE_BIN);
  `;
  const args = ['--blobHost', '127.0.0.1', '--blobPort', String(ports.blobPort), '--queueHost', '127.0.0.1', '--queuePort', String(ports.queuePort)];
  args.push('--tableHost', '127.0.0.1', '--tablePort', String(ports.tablePort), '--silent', '--disableTelemetry', '--skipApiVersionCheck', '--loose', '--location', folder);
  const child = spawn(process.execPath, ['--max-old-space-size=6144', '-e', launcher, 'azurite', ...args], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, SIGNALBOX_AZURITE_BIN: bin, SIGNALBOX_AZURITE_DIR: path.dirname(bin) },
  });
  child.channel?.unref();
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Azurite exited with code ${child.exitCode}`);
    const { createConnection } = await import('node:net');
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection(ports.tablePort, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) break;
    if (Date.now() > deadline) throw new Error('Azurite did not open its table port in 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    connectionString: azuriteConnectionString(ports),
    ...ports,
    pid: child.pid,
    location: folder,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A copy of the prepared folder for one run (the run's writes must not change the prepared data). */
export async function copyForRun(folder: string): Promise<string> {
  const run = `${folder}-run`;
  await rm(run, { recursive: true, force: true });
  await cp(folder, run, { recursive: true });
  return run;
}

/**
 * Sets every chunk partition's rows to the workflow's partition, with LokiJS (Azurite's own store), in a
 * child process with the heap a database of hundreds of MB needs. Returns the rows moved.
 */
async function joinPartitions(file: string, searchTable: string, workflowId: string): Promise<number> {
  const script = `
    const Loki = require(require.resolve('lokijs', { paths: [process.env.AZURITE_DIR] }));
    const db = new Loki(process.env.DB_FILE, { persistenceMethod: 'fs' });
    db.loadDatabase({}, (error) => {
      if (error) throw error;
      const collection = db.collections.find((candidate) => candidate.name.toLowerCase().endsWith('$' + process.env.SEARCH_TABLE.toLowerCase()));
      if (!collection) throw new Error('no collection of table ' + process.env.SEARCH_TABLE);
      let joined = 0;
      for (const doc of collection.data) {
        if (typeof doc.PartitionKey !== 'string' || !doc.PartitionKey.startsWith(process.env.CHUNK_PREFIX)) continue;
        doc.PartitionKey = process.env.TARGET;
        if (doc.properties && 'PartitionKey' in doc.properties) doc.properties.PartitionKey = process.env.TARGET;
        joined++;
      }
      collection.ensureIndex('PartitionKey', true);
      db.saveDatabase((saveError) => {
        if (saveError) throw saveError;
        process.stdout.write(String(joined));
      });
    });
  `;
  const env = {
    ...process.env,
    AZURITE_DIR: path.dirname(require.resolve('azurite/package.json')),
    DB_FILE: file,
    SEARCH_TABLE: searchTable,
    TARGET: encodeKey(workflowId, 'workflow id'),
    // The encoded `<workflow>~<chunk>` without its chunk number.
    CHUNK_PREFIX: encodeKey(chunkWorkflowId(workflowId, 0), 'workflow id').replace(/0$/, ''),
  };
  const child = spawn(process.execPath, ['--max-old-space-size=8192', '-e', script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`joining the search partitions failed (exit ${code})`);
  return Number(out);
}
