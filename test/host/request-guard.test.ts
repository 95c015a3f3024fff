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
  const refusal = (method: string, values: Record<string, string>, policy = cors) => crossSiteRefusal({ method, headers: headers({ host: '127.0.0.1:7071', ...values }) }, policy);
  const check = (method: string, values: Record<string, string>, policy = cors) => refusal(method, values, policy)?.status;

  it('leaves reads alone, whatever they carry', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect(check(method, { origin: 'https://attacker.example' })).toBeUndefined();
      expect(check(method, { origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' })).toBeUndefined();
    }
  });

  it('takes what a plain HTTP client sends: no Origin, no fetch metadata, no content type, no custom header', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) expect(check(method, {})).toBeUndefined();
    expect(check('POST', { 'content-type': 'application/x-www-form-urlencoded' })).toBeUndefined(); // its body is request-body.ts's to refuse
  });

  it("takes a browser's request from this origin, from the user's own action, and from a CORS origin", () => {
    expect(check('DELETE', { 'sec-fetch-site': 'same-origin', origin: 'http://127.0.0.1:7071' })).toBeUndefined();
    expect(check('POST', { 'sec-fetch-site': 'SAME-ORIGIN' })).toBeUndefined();
    expect(check('POST', { 'sec-fetch-site': 'none' })).toBeUndefined();
    expect(check('POST', { 'sec-fetch-site': 'cross-site', origin: 'https://console.example.com' })).toBeUndefined();
    expect(check('PUT', { 'sec-fetch-site': 'same-site', origin: 'https://console.example.com/' })).toBeUndefined();
    expect(check('POST', { 'sec-fetch-site': 'cross-site', origin: 'https://anything.example' }, { allowedOrigins: ['*'] })).toBeUndefined();
    // Without fetch metadata (an older browser): its own origin, or a CORS one.
    expect(check('POST', { origin: 'http://127.0.0.1:7071' })).toBeUndefined();
    expect(check('POST', { origin: 'https://console.example.com/' })).toBeUndefined();
    expect(check('POST', { origin: 'https://anything.example' }, { allowedOrigins: ['*'] })).toBeUndefined();
    expect(crossSiteRefusal({ method: 'POST', headers: headers({ host: 'signalbox.example:443', origin: 'https://signalbox.example' }) }, cors)).toBeUndefined();
  });

  it('refuses with 403 what a browser marks cross-site or same-site from an origin the CORS setting does not list', () => {
    // A form POST and a no-cors fetch from another site, a frame whose origin is opaque, a sibling subdomain.
    const attacks: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', origin: 'https://attacker.example', 'content-type': 'application/x-www-form-urlencoded' },
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', origin: 'https://attacker.example', 'content-type': 'text/plain' },
      { 'sec-fetch-site': 'cross-site', origin: 'null' },
      { 'sec-fetch-site': 'same-site', origin: 'https://evil.console.example.com' },
      { 'sec-fetch-site': 'same-site', origin: 'http://localhost:8080' },
      // What only a preflight would let through does not help: the browser's word stands.
      { 'sec-fetch-site': 'cross-site', origin: 'http://127.0.0.1:7071', 'content-type': 'application/json', 'x-signalbox-client': 'x' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'some-future-value', origin: 'https://attacker.example' },
    ];
    for (const attack of attacks) for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) expect([attack, method, check(method, attack)]).toEqual([attack, method, 403]);
    const detail = (refusal('POST', attacks[0]!)?.body as { detail: string }).detail;
    expect(detail).toContain('Sec-Fetch-Site: cross-site');
    expect(detail).toContain('"https://attacker.example"');
    expect(detail).toContain('SIGNALBOX_CORS_ALLOWED_ORIGINS');
  });

  it('refuses with 403 a foreign Origin without fetch metadata, null included, even with what only a preflight allows', () => {
    for (const origin of [
      'http://127.0.0.1:1',
      'http://localhost:7071',
      'https://127.0.0.1:7071.attacker.example',
      'null',
      'https://console.example.com.attacker.example',
      'https://evil.console.example.com',
      '',
    ]) {
      expect([origin, check('POST', { 'content-type': 'application/json', 'x-signalbox-client': 'x', origin })]).toEqual([origin, 403]);
      expect([origin, check('DELETE', { origin })]).toEqual([origin, 403]);
    }
    expect((refusal('POST', { origin: 'null' })?.body as { detail: string }).detail).toContain('"null"');
  });
});
