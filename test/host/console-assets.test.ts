/**
 * The web console's static files: what the shared handler reads (and refuses to), and how the local
 * server (over real loopback HTTP) and the Functions handler expose it. A small stand-in build in a
 * temporary folder keeps these tests independent of `npm run build`.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HttpRequest } from '@azure/functions';
import { handleConsole } from '../../functions/console';
import { defaultConsoleFolder, packageRoot, serveConsoleAsset } from '../../src/host/console-assets';
import { startLocalHost, type LocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { prefixedStorageNames } from '../../src/storage/names';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from './http-client';

const INDEX = '<!doctype html><title>console</title><script type="module" src="./assets/app-1a2b.js"></script>';
const SCRIPT = 'console.log("console")';
let folder: string;
let outside: string;

beforeAll(() => {
  const root = mkdtempSync(path.join(tmpdir(), 'signalbox-console-'));
  folder = path.join(root, 'console');
  mkdirSync(path.join(folder, 'assets'), { recursive: true });
  writeFileSync(path.join(folder, 'index.html'), INDEX);
  writeFileSync(path.join(folder, 'assets', 'app-1a2b.js'), SCRIPT);
  writeFileSync(path.join(folder, 'assets', 'style.css'), 'body{}');
  writeFileSync(path.join(folder, '.env'), 'SECRET=1');
  outside = path.join(root, 'secret.txt');
  writeFileSync(outside, 'not for the browser');
});

afterAll(() => rmSync(path.dirname(folder), { recursive: true, force: true }));

describe('serveConsoleAsset', () => {
  it('serves index.html for the folder itself, uncached, with a same-origin content security policy', async () => {
    const response = await serveConsoleAsset(folder, 'GET', '');
    expect(response).toMatchObject({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' } });
    expect(response!.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(response!.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response!.body!.toString()).toBe(INDEX);
  });

  it('serves hashed assets as immutable, typed by extension', async () => {
    const script = await serveConsoleAsset(folder, 'GET', 'assets/app-1a2b.js');
    expect(script).toMatchObject({
      status: 200,
      headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable', 'content-length': String(SCRIPT.length) },
    });
    expect(script!.body!.toString()).toBe(SCRIPT);
    expect((await serveConsoleAsset(folder, 'GET', 'assets/style.css'))!.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('answers HEAD with the headers only', async () => {
    const response = await serveConsoleAsset(folder, 'HEAD', 'assets/app-1a2b.js');
    expect(response).toMatchObject({ status: 200, headers: { 'content-length': String(SCRIPT.length) } });
    expect(response!.body).toBeUndefined();
  });

  it.each([
    ['a missing file', 'assets/nope.js'],
    ['a parent folder', '../secret.txt'],
    ['an encoded parent folder', '%2e%2e/secret.txt'],
    ['an encoded slash climbing out', '..%2fsecret.txt'],
    ['a hidden file', '.env'],
    ['a backslash', 'assets\\app-1a2b.js'],
    ['a NUL byte', 'index.html%00.js'],
    ['a malformed escape', '%E0%A4%A'],
    ['a folder', 'assets'],
    ['an empty segment', 'assets//app-1a2b.js'],
  ])('finds nothing for %s', async (_name, assetPath) => {
    expect(await serveConsoleAsset(folder, 'GET', assetPath)).toBeUndefined();
  });

  it('refuses methods other than GET and HEAD with a problem', async () => {
    const response = await serveConsoleAsset(folder, 'POST', 'index.html');
    expect(response).toMatchObject({ status: 405, headers: { 'content-type': 'application/problem+json' } });
    expect(JSON.parse(response!.body!.toString())).toMatchObject({ status: 405, title: 'Method not allowed' });
  });

  it('says how to build the console when it has not been built', async () => {
    const response = await serveConsoleAsset(path.join(folder, 'not-built'), 'GET', '');
    expect(response?.status).toBe(503);
    expect(JSON.parse(response!.body!.toString()).detail).toContain('npm run build');
  });

  it('finds the package root and the build folder in it', () => {
    expect(path.basename(path.dirname(defaultConsoleFolder()))).toBe('dist');
    expect(packageRoot()).toBe(path.resolve(__dirname, '..', '..'));
  });
});

describe('the local server', () => {
  let host: LocalHost;
  let http: ReturnType<typeof httpClient>;

  beforeAll(async () => {
    host = await startLocalHost({
      env: { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_API_KEY: 'console-test-key' },
      port: 0,
      storageNames: prefixedStorageNames(uniquePrefix('con')),
      logger: silentLogger,
      consoleFolder: folder,
    });
    http = httpClient(host.url);
  });

  afterAll(async () => {
    await host?.stop();
  });

  it.each(['/', '/console'])('leads %s to /console/', async (pathname) => {
    const response = await fetch(`${host.url}${pathname}`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/console/');
  });

  it('serves the console without the key (it holds no data), while the API still asks for it', async () => {
    const index = await http.request('GET', '/console/');
    expect(index.status).toBe(200);
    expect(index.text).toBe(INDEX);
    const script = await http.request('GET', '/console/assets/app-1a2b.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await http.request('GET', '/api/workflows')).status).toBe(401);
  });

  it('answers unknown console paths and paths outside the folder with a problem+json 404', async () => {
    for (const pathname of ['/console/nope.js', '/console/%2e%2e/secret.txt', '/console/.env', '/index.html']) {
      const response = await http.request('GET', pathname);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
  });
});

describe('the Functions handler (console/{*path})', () => {
  const request = (url: string, params: Record<string, string> = {}, method = 'GET') => new HttpRequest({ method, url, params });

  it('sends /api/console to /api/console/, where the relative asset URLs resolve', async () => {
    const response = await handleConsole(request('https://signalbox.example/api/console'), folder);
    expect(response).toMatchObject({ status: 302, headers: { location: '/api/console/' } });
  });

  it('serves index.html and the assets below it', async () => {
    const index = await handleConsole(request('https://signalbox.example/api/console/'), folder);
    expect(index.status).toBe(200);
    expect(Buffer.from(index.body as Uint8Array).toString()).toBe(INDEX);
    const script = await handleConsole(request('https://signalbox.example/api/console/assets/app-1a2b.js', { path: 'assets/app-1a2b.js' }), folder);
    expect(script).toMatchObject({ status: 200, headers: { 'content-type': 'text/javascript; charset=utf-8' } });
  });

  it('answers a missing file with a problem+json 404', async () => {
    const response = await handleConsole(request('https://signalbox.example/api/console/nope.js', { path: 'nope.js' }), folder);
    expect(response).toMatchObject({ status: 404, headers: { 'content-type': 'application/problem+json' } });
  });
});
