/**
 * The typed client (src/client) against a real local server: its committed types are exactly what
 * openapi-typescript generates from the server's GET /api/openapi.json (so they cannot drift), the
 * walkthrough written against them (examples/client-walkthrough.ts) type-checks against a fresh generation
 * with no casts, and runs; and the document passes Redocly's recommended rules.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import ts from 'typescript';
import { runClientWalkthrough } from '../../examples/client-walkthrough';
import { createSignalboxClient, waitForOperation } from '../../src/client';
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
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

/** src/client/api-types.ts as openapi-typescript generates it from `source` (a URL or a file). */
async function generateClientTypes(source: string): Promise<string> {
  const { stdout } = await promisify(execFile)(join(repo, 'node_modules', '.bin', 'tsx'), ['scripts/generate-client.ts', source, '--stdout'], { cwd: repo, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

const walkthroughPath = resolve(repo, 'examples', 'client-walkthrough.ts');
const clientTypesPath = resolve(repo, 'src', 'client', 'api-types.ts');

/** The compiler's errors for the walkthrough, with the client's types replaced by `clientTypes`. */
function typeErrorsOfWalkthrough(clientTypes: string): string[] {
  const { config } = ts.readConfigFile(join(repo, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, repo);
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    resolve(fileName) === clientTypesPath ? ts.createSourceFile(fileName, clientTypes, languageVersion, true) : getSourceFile(fileName, languageVersion, ...rest);
  const program = ts.createProgram({ rootNames: [walkthroughPath], options: { ...options, noEmit: true }, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
}

/** Casts, non-null assertions, `any` and directives that silence the compiler, in a file's code. */
function castsIn(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node) || node.kind === ts.SyntaxKind.AnyKeyword) found.push(node.getText(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const directive of source.text.match(/@ts-(ignore|expect-error|nocheck)/g) ?? []) found.push(directive);
  return found;
}

let freshTypes: Promise<string> | undefined;
const freshClientTypes = () => (freshTypes ??= generateClientTypes(`${host.url}/api/openapi.json`));

it('commits the client types exactly as openapi-typescript generates them from GET /api/openapi.json (run `npx tsx scripts/generate-client.ts`)', async () => {
  expect(readFileSync(clientTypesPath, 'utf8')).toBe(await freshClientTypes());
});

it('type-checks the walkthrough, written with no casts, against a client freshly generated from GET /api/openapi.json', async () => {
  expect(castsIn(walkthroughPath)).toEqual([]);
  expect(typeErrorsOfWalkthrough(await freshClientTypes())).toEqual([]);
});

it('finds type errors in the walkthrough when the document leaves something out (the check can fail)', async () => {
  // The first complaint: sendInstanceTrigger with no request body, success answers without schemas.
  const thinner = JSON.parse(JSON.stringify(document)) as { paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, { content?: unknown }> }>> };
  delete thinner.paths['/instances/{instanceId}/triggers']!.post!.requestBody;
  delete thinner.paths['/instances/{instanceId}']!.get!.responses['200']!.content;
  const directory = mkdtempSync(join(tmpdir(), 'signalbox-openapi-'));
  try {
    writeFileSync(join(directory, 'openapi.json'), JSON.stringify(thinner));
    const errors = typeErrorsOfWalkthrough(await generateClientTypes(join(directory, 'openapi.json')));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((error) => error.startsWith(walkthroughPath))).toBe(true);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

it('runs the typed walkthrough against the local server, key included, twice, leaving what the user has alone', async () => {
  const headers = { 'content-type': 'application/json', 'x-functions-key': 'walkthrough-key' };
  // The user's own expense claim and claim-42, as the walkthrough (README, docs/getting-started/walkthrough.md) leaves them.
  const mine = readFileSync(join(repo, 'examples', 'expense-claim.json'), 'utf8');
  expect((await fetch(`${host.url}/api/workflows/expense-claim`, { method: 'PUT', headers, body: mine })).status).toBe(201);
  const claim42 = await fetch(`${host.url}/api/instances`, { method: 'POST', headers, body: JSON.stringify({ workflowId: 'expense-claim', instanceId: 'claim-42', context: { claimantId: 'ann' } }) });
  expect(claim42.status).toBe(201);
  const before = { workflow: await (await fetch(`${host.url}/api/workflows/expense-claim`, { headers })).json(), claim: await (await fetch(`${host.url}/api/instances/claim-42`, { headers })).json() };

  const result = await runClientWalkthrough(`${host.url}/api`, { apiKey: 'walkthrough-key' });
  expect(result.version).toBe(1);
  expect(result.updateSummary).toMatchObject({ transitioned: 1 });
  expect(result.submitOutcome).toBe('transitioned');
  expect(result.instance).toMatchObject({
    id: result.claimId,
    workflowId: 'walkthrough-claim',
    stateId: 'waiting-for-approval',
    status: 'waiting',
    context: { amount: 120, submittedAt: '2026-11-22' },
  });
  expect(result.notModifiedStatus).toBe(304);
  expect(result.history).toEqual(['∅ → waiting-for-submission', 'waiting-for-submission → waiting-for-submission', 'waiting-for-submission → waiting-for-approval']);
  expect(result.waitingForApproval).toEqual([result.claimId]);

  // Run again: the same definition is not a new version, and a second claim of its own joins the first.
  const again = await runClientWalkthrough(`${host.url}/api`, { apiKey: 'walkthrough-key' });
  expect(again.claimId).not.toBe(result.claimId);
  expect(again.version).toBe(1);
  expect(again.updateSummary).toMatchObject({ transitioned: 1 });
  expect(again.submitOutcome).toBe('transitioned');
  expect(again.waitingForApproval.sort()).toEqual([result.claimId, again.claimId].sort());

  const after = { workflow: await (await fetch(`${host.url}/api/workflows/expense-claim`, { headers })).json(), claim: await (await fetch(`${host.url}/api/instances/claim-42`, { headers })).json() };
  expect(after).toEqual(before);
});

it('sends Prefer: wait through the typed client: 200 from the POST, and waitForOperation with waitInSeconds', async () => {
  const client = createSignalboxClient({ baseUrl: `${host.url}/api`, apiKey: 'walkthrough-key' });
  // Nobody is interested in this subject: the operation finishes at once, with no candidates.
  const waited = await client.POST('/triggers', { body: { id: 'typed-wait-1', name: 'Nothing', subjects: ['nobody-at-all'] }, params: { header: { Prefer: 'wait=10' } } });
  expect(waited.response.status).toBe(200);
  expect(waited.response.headers.get('preference-applied')).toBe('wait=10');
  expect(waited.data).toMatchObject({ id: 'typed-wait-1', status: 'succeeded', candidates: 0 });

  const accepted = await client.POST('/triggers', { body: { id: 'typed-wait-2', name: 'Nothing', subjects: ['nobody-at-all'] } });
  expect(accepted.response.status).toBe(202);
  // One poll suffices: it waits for the operation instead of answering 202 at once.
  await expect(waitForOperation(client, 'typed-wait-2', { waitInSeconds: 10, maxPolls: 1 })).resolves.toMatchObject({ id: 'typed-wait-2', status: 'succeeded' });
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
