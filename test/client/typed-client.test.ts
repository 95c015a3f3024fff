/**
 * The typed client (src/client) against a real local server: its committed types are exactly what
 * openapi-typescript generates from the server's GET /api/openapi.json (so they cannot drift), the
 * walkthrough written against them (examples/client-walkthrough.ts, type-checked by `npm test` with
 * no casts) runs, and the document passes Redocly's recommended rules.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { runClientWalkthrough } from '../../examples/client-walkthrough';
import { createSignalboxClient } from '../../src/client';
import { startLocalHost, type LocalHost } from '../../src/host/local-host';
import { silentLogger } from '../../src/host/logger';
import { prefixedStorageNames } from '../../src/storage/names';
import { testConnectionString, uniquePrefix } from '../support/storage';

const repo = join(__dirname, '..', '..');
let host: LocalHost;
let document: Record<string, unknown>;

beforeAll(async () => {
  host = await startLocalHost({
    env: { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_API_KEY: 'walkthrough-key' },
    port: 0,
    storageNames: prefixedStorageNames(uniquePrefix('client')),
    logger: silentLogger,
  });
  document = (await (await fetch(`${host.url}/api/openapi.json`)).json()) as Record<string, unknown>;
});

afterAll(async () => {
  await host?.stop();
});

it('commits the client types exactly as openapi-typescript generates them from GET /api/openapi.json (run `npx tsx scripts/generate-client.ts`)', async () => {
  const { stdout } = await promisify(execFile)(join(repo, 'node_modules', '.bin', 'tsx'), ['scripts/generate-client.ts', `${host.url}/api/openapi.json`, '--stdout'], { cwd: repo, maxBuffer: 16 * 1024 * 1024 });
  expect(readFileSync(join(repo, 'src', 'client', 'api-types.ts'), 'utf8')).toBe(stdout);
});

it('runs the typed walkthrough against the local server, key included', async () => {
  const result = await runClientWalkthrough(`${host.url}/api`, { apiKey: 'walkthrough-key' });
  expect(result.version).toBe(1);
  expect(result.updateSummary).toMatchObject({ transitioned: 1 });
  expect(result.submitOutcome).toBe('transitioned');
  expect(result.instance).toMatchObject({ id: 'claim-42', stateId: 'waiting-for-approval', status: 'waiting', context: { claimantId: 'ann', amount: 120, submittedAt: '2026-11-22' } });
  expect(result.notModifiedStatus).toBe(304);
  expect(result.history).toEqual(['∅ → waiting-for-submission', 'waiting-for-submission → waiting-for-submission', 'waiting-for-submission → waiting-for-approval']);
  expect(result.waitingForApproval).toEqual(['claim-42']);

  // Run again: the workflow gets version 2 through If-Match, and a second claim joins the first.
  const again = await runClientWalkthrough(`${host.url}/api`, { apiKey: 'walkthrough-key', claimId: 'claim-43' });
  expect(again.version).toBe(2);
  expect(again.waitingForApproval.sort()).toEqual(['claim-42', 'claim-43']);
});

it('reports problems as typed errors, and a missing key as 401', async () => {
  const client = createSignalboxClient({ baseUrl: `${host.url}/api/`, apiKey: 'walkthrough-key' });
  const missing = await client.GET('/instances/{instanceId}', { params: { path: { instanceId: 'nobody' } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error).toMatchObject({ status: 404, title: 'Not found' });
  const keyless = await createSignalboxClient({ baseUrl: `${host.url}/api` }).GET('/workflows');
  expect(keyless.response.status).toBe(401);
  expect(keyless.error?.status).toBe(401);
});

it("passes Redocly's recommended rules with no error and no warning", async () => {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
  expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`)).toEqual([]);
});
