/** The checks that keep web pages out (src/host/http/request-guard.ts), one by one; the seams suite crosses them with every route. */
import { crossSiteRefusal, hostRefusal } from '../../src/host/http/request-guard';

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name.toLowerCase()] ?? null });

describe('hostRefusal', () => {
  const policy = { port: 7071, serverNames: ['signalbox.internal', 'box.lan:8443'] };
  it.each(['127.0.0.1:7071', 'localhost:7071', 'LocalHost:7071', '[::1]:7071', 'signalbox.internal', 'signalbox.internal:9000', 'box.lan:8443'])('answers %s', (host) => {
    expect(hostRefusal(host, policy)).toBeUndefined();
  });
  it.each([
    'attacker.example:7071',
    '127.0.0.1:7072',
    'localhost',
    '127.0.0.2:7071',
    'box.lan:8444',
    'localhost.attacker.example:7071',
    'user@localhost:7071',
    '',
    '[::1]',
    'signalbox.internal.attacker.example',
  ])('refuses %j with 421 naming the setting', (host) => {
    const refusal = hostRefusal(host, policy);
    expect(refusal?.status).toBe(421);
    expect((refusal?.body as { detail: string }).detail).toContain('SIGNALBOX_SERVER_NAMES');
  });
  it('refuses a request without Host, and takes a loopback name without a port on port 80', () => {
    expect(hostRefusal(null, policy)?.status).toBe(421);
    expect(hostRefusal('localhost', { port: 80, serverNames: [] })).toBeUndefined();
  });
});

describe('crossSiteRefusal', () => {
  const cors = { allowedOrigins: ['https://console.example.com'] };
  const check = (method: string, values: Record<string, string>, policy = cors) => crossSiteRefusal({ method, headers: headers({ host: '127.0.0.1:7071', ...values }) }, policy)?.status;

  it('leaves reads alone, whatever they carry', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(check(method, { origin: 'https://attacker.example' })).toBeUndefined();
  });
  it('takes a state-changing request with a JSON content type or the client header, from no origin, its own origin or a CORS origin', () => {
    expect(check('POST', { 'content-type': 'application/json; charset=utf-8' })).toBeUndefined();
    expect(check('PUT', { 'content-type': 'application/merge-patch+json' })).toBeUndefined();
    expect(check('DELETE', { 'x-signalbox-client': 'cli' })).toBeUndefined();
    expect(check('POST', { 'x-signalbox-client': 'console', origin: 'http://127.0.0.1:7071' })).toBeUndefined();
    expect(check('POST', { 'x-signalbox-client': 'console', origin: 'https://console.example.com/' })).toBeUndefined();
    expect(check('POST', { 'x-signalbox-client': 'x', origin: 'https://anything.example' }, { allowedOrigins: ['*'] })).toBeUndefined();
    expect(crossSiteRefusal({ method: 'POST', headers: headers({ host: 'signalbox.example:443', origin: 'https://signalbox.example', 'x-signalbox-client': 'x' }) }, cors)).toBeUndefined();
  });
  it('refuses what a form or a simple request can send with 415', () => {
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain', 'application/jsonp']) expect(check('POST', { 'content-type': type })).toBe(415);
    expect(check('DELETE', {})).toBe(415);
    expect(check('POST', { 'x-signalbox-client': '  ' })).toBe(415);
  });
  it('refuses a foreign Origin with 403, even with what only a preflight allows', () => {
    for (const origin of ['http://127.0.0.1:1', 'http://localhost:7071', 'https://127.0.0.1:7071.attacker.example', 'null', 'https://console.example.com.attacker.example']) {
      expect(check('POST', { 'content-type': 'application/json', origin })).toBe(403);
    }
  });
});
