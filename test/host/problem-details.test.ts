/**
 * Issue 9: 503 and 409 answers revealed the storage endpoint and the service's error codes. Storage
 * failures, produced by the real SDK against a real (loopback) endpoint, now answer a generic detail;
 * the message goes to the server log only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { azuriteConnectionString } from '../../src/host/local/azurite';
import { problemResponse } from '../../src/host/problem';
import { createAzureStorage } from '../../src/storage/create-azure-storage';
import { createTestStorage, makeInstance } from '../storage/fixtures';

let refusing: Server;
let port: number;

beforeAll(async () => {
  // A storage endpoint that refuses every request as Azure does, with its error code in the body.
  refusing = createServer((request, response) => {
    request.resume();
    response.writeHead(403, { 'content-type': 'application/json', 'x-ms-error-code': 'AuthorizationFailure' });
    response.end(JSON.stringify({ 'odata.error': { code: 'AuthorizationFailure', message: { lang: 'en-US', value: 'This request is not authorized.' } } }));
  });
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  port = (refusing.address() as AddressInfo).port;
});

afterAll(() => new Promise((resolve) => refusing.close(resolve)));

function answer(error: unknown) {
  const logged: unknown[] = [];
  const response = problemResponse(error, (_message, cause) => logged.push(cause));
  return { response, body: response.body as { status: number; detail: string }, logged };
}

describe('problem details of storage failures', () => {
  it('503: says storage failed, not where or with which code; the log has the error', async () => {
    const storage = await createAzureStorage({ connection: azuriteConnectionString({ blobPort: port, queuePort: port, tablePort: port }), createIfMissing: false });
    const error = await storage.instances.get('i1').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    const { response, body, logged } = answer(error);
    expect(response.status).toBe(503);
    expect(body.detail).not.toMatch(/AuthorizationFailure|127\.0\.0\.1|403/);
    expect(body.detail).not.toContain((error as Error).message);
    expect(logged).toEqual([error]);
  });

  it('409 from storage: a generic detail; the engine’s own conflicts keep theirs', async () => {
    const storage = await createTestStorage();
    await storage.instances.create(makeInstance('twice'));
    const error = await storage.instances.create(makeInstance('twice')).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    const { response, body, logged } = answer(error);
    expect(response.status).toBe(409);
    expect(body.detail).not.toContain((error as Error).message);
    expect(body.detail).not.toMatch(/EntityAlreadyExists|\(conflict\)/);
    expect(logged).toEqual([error]);
  });
});
