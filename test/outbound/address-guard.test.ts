/**
 * The allow-list resolves names where the connection is made: a listed name (or a wildcard match) that
 * resolves to a loopback, private or link-local address is refused unless that name or address is listed
 * exactly. A real local server stands behind a played resolver (the only way to make a name resolve to
 * 127.0.0.1 on any machine); the connection itself is real.
 */
import type { LookupAddress } from 'node:dns';
import { validateDefinition } from '../../src/engine';
import { ExternalServiceError, OutboundRefusedError, createOutboundClient, isAddressAllowed, isHostAllowed, isPublicAddress, type ResolveAll } from '../../src/outbound';
import { instanceIn, json, processTrigger, startServer, testEffects, trigger } from '../engine/support';
import { testCertificate } from './support';

type Server = Awaited<ReturnType<typeof startServer>>;
let server: Server;
let tlsServer: Server;

beforeAll(async () => {
  server = await startServer((_request, response) => json(response, 200, true));
  tlsServer = await startServer((_request, response) => json(response, 200, true), { tls: await testCertificate() });
});
afterAll(async () => {
  await server.close();
  await tlsServer.close();
});
beforeEach(() => {
  server.requests.length = 0;
  tlsServer.requests.length = 0;
});

/** A resolver that answers `answers[name]`, and records what it was asked. */
function resolver(answers: Record<string, string[]>): ResolveAll & { asked: string[] } {
  const asked: string[] = [];
  const resolveAll: ResolveAll = (hostname, _options, callback) => {
    asked.push(hostname);
    const addresses = answers[hostname];
    if (!addresses) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(
      null,
      addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return Object.assign(resolveAll, { asked });
}

async function callVia(hostname: string, allowedHosts: string[], resolveAll: ResolveAll, target: Server = server) {
  const { port, protocol } = new URL(target.url);
  const def = validateDefinition({
    id: 'g',
    displayName: 'g',
    initialStateId: 'a',
    states: {
      a: { transitions: [{ id: 't', targetStateId: 'b', conditions: [{ type: 'invokeExternalService', url: `${protocol}//${hostname}:${port}/check`, method: 'GET', contextItemsToInclude: [] }] }] },
      b: {},
    },
  });
  const http = createOutboundClient({ allowedHosts, resolveAll, retryDelayInMs: 1 });
  return processTrigger(def, instanceIn(def, 'a'), trigger('Go'), testEffects({ http }));
}

describe('the allow-list checks the resolved address', () => {
  it('refuses a wildcard-listed name that resolves to loopback, before connecting, and does not retry', async () => {
    const dns = resolver({ 'svc.example.test': ['127.0.0.1'] });
    const result = await callVia('svc.example.test', ['*.example.test'], dns);
    expect(result).toMatchObject({ outcome: 'faulted', instance: { status: 'faulted' } });
    expect(result.instance.fault?.message).toContain('"svc.example.test" resolves to 127.0.0.1, which is not a public address');
    expect(server.requests).toHaveLength(0);
    expect(dns.asked).toEqual(['svc.example.test']); // resolved by the connection, once: a refusal is not retried
  });

  it('refuses a name whose answers mix a public and a private address (a rebinding resolver)', async () => {
    const result = await callVia('svc.example.test', ['*.example.test'], resolver({ 'svc.example.test': ['93.184.216.34', '127.0.0.1'] }));
    expect(result.instance.fault?.message).toContain('resolves to 127.0.0.1');
    expect(server.requests).toHaveLength(0);
  });

  it('guards https connections the same way', async () => {
    const dns = resolver({ 'svc.example.test': ['127.0.0.1'] });
    const result = await callVia('svc.example.test', ['*.example.test'], dns, tlsServer);
    expect(result.instance.fault?.message).toContain('"svc.example.test" resolves to 127.0.0.1, which is not a public address');
    expect(tlsServer.requests).toHaveLength(0);
    expect(dns.asked).toEqual(['svc.example.test']);
  });

  it('refuses link-local and private answers too (the metadata endpoint, a private network)', async () => {
    for (const address of ['169.254.169.254', '10.1.2.3', '192.168.0.10', '::ffff:127.0.0.1']) {
      const result = await callVia('svc.example.test', ['*.example.test'], resolver({ 'svc.example.test': [address] }));
      expect([address, result.instance.fault?.message]).toEqual([address, expect.stringContaining(`resolves to ${address}, which is not a public address`)]);
    }
  });

  it('connects when the name is listed exactly, or the address is', async () => {
    const dns = { 'svc.example.test': ['127.0.0.1'] };
    await expect(callVia('svc.example.test', ['svc.example.test'], resolver(dns))).resolves.toMatchObject({ outcome: 'transitioned' });
    await expect(callVia('svc.example.test', ['*.example.test', '127.0.0.1'], resolver(dns))).resolves.toMatchObject({ outcome: 'transitioned' });
    expect(server.requests.map((request) => request.headers.host)).toEqual([`svc.example.test:${new URL(server.url).port}`, `svc.example.test:${new URL(server.url).port}`]);
  });

  it('classifies addresses: only public unicast passes unlisted', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '203.0.113.9',
      'not an address',
    ]) {
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) {
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
    }
    expect(isAddressAllowed('api.example.com', '10.0.0.1', ['*.example.com'])).toBe(false);
    expect(isAddressAllowed('api.example.com', '10.0.0.1', ['api.example.com'])).toBe(true);
    expect(isAddressAllowed('api.example.com', '::ffff:10.0.0.1', ['*.example.com', '10.0.0.1'])).toBe(true);
  });

  it('a wildcard never matches an IP address literal (those skip DNS, so they must be listed exactly)', () => {
    expect(isHostAllowed(new URL('http://10.0.0.1/'), ['*.0.1'])).toBe(false);
    expect(isHostAllowed(new URL('http://[fd00::1]/'), ['*.1'])).toBe(false);
    expect(isHostAllowed(new URL('http://10.0.0.1/'), ['10.0.0.1'])).toBe(true);
  });
});

describe('IP literals and refusals', () => {
  it('connects to a listed IPv6 literal (brackets and all), by the real resolver', async () => {
    const { port } = new URL(server.url);
    // ::ffff:7f00:1 is 127.0.0.1 written as IPv4-mapped IPv6: it reaches the IPv4 loopback server.
    const http = createOutboundClient({ allowedHosts: ['::ffff:7f00:1'], retryDelayInMs: 1 });
    const response = await http.send({ url: `http://[::ffff:7f00:1]:${port}/v6`, method: 'GET', headers: {} });
    expect(response.status).toBe(200);
    expect(server.requests.map((request) => request.url)).toEqual(['/v6']);
  });

  it('refuses an IPv6 literal that is not listed, as a refusal of the configuration', async () => {
    const { port } = new URL(server.url);
    const http = createOutboundClient({ allowedHosts: ['example.test'] });
    await expect(http.send({ url: `http://[::ffff:7f00:1]:${port}/v6`, method: 'GET', headers: {} })).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(server.requests).toHaveLength(0);
  });

  it('says which URLs it would refuse before sending, and refuses them and refused addresses with OutboundRefusedError', async () => {
    const http = createOutboundClient({ allowedHosts: ['*.example.test', '127.0.0.1'], resolveAll: resolver({ 'svc.example.test': ['10.0.0.1'] }) });
    expect(http.refusal?.('https://other.example/')).toBe('the host "other.example" is not on the allow-list (SIGNALBOX_ALLOWED_HOSTS)');
    expect(http.refusal?.('ftp://svc.example.test/')).toContain('is not http or https');
    expect(http.refusal?.('https://svc.example.test/')).toBeUndefined();
    expect(http.refusal?.(`${server.url}/x`)).toBeUndefined();
    await expect(http.send({ url: 'https://other.example/', method: 'GET', headers: {} })).rejects.toBeInstanceOf(OutboundRefusedError);
    // Listed by its wildcard, but it resolves to a private address: refused at connect time, the same kind.
    await expect(http.send({ url: `http://svc.example.test:${new URL(server.url).port}/`, method: 'GET', headers: {} })).rejects.toBeInstanceOf(OutboundRefusedError);
    // A transient failure is not a refusal.
    const closed = createOutboundClient({ allowedHosts: ['127.0.0.1'], maxRetries: 0 });
    const failure = await closed.send({ url: 'http://127.0.0.1:1/', method: 'GET', headers: {} }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ExternalServiceError);
    expect(failure).not.toBeInstanceOf(OutboundRefusedError);
  });
});
