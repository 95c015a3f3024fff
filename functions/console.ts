/**
 * @module The web console on Azure: one anonymous HTTP function serving the built static files at
 * `/api/console/` (the host's route prefix is `api`, which the API keeps; the app root would need the
 * prefix removed for every route). The files hold no data and the console calls the API with the
 * function key the user enters, so anonymous access reveals nothing.
 *
 * The Functions host tries HTTP functions in the order of their names, first match winning; the
 * problem+json catch-all (route `{*path}`, which matches `console/...` too) is named to sort last
 * (functions/http.ts), so this function answers its paths. test/functions/registration.test.ts routes
 * the console's paths and every API path the way the host does. This module registers before
 * functions/http.ts (functions/index.ts), so the catch-all stays the last function registered too.
 */
import { app, type HttpRequest, type HttpResponseInit } from '@azure/functions';
import { consoleRedirect, defaultConsoleFolder, serveConsoleAsset, type ConsoleAssetResponse } from '../src/host/console-assets';
import { consoleConfigFromEnv } from '../src/host/http/system/console-routes';
import { problem } from '../src/host/problem';

export const CONSOLE_FUNCTION = 'console';

function toResponse(asset: ConsoleAssetResponse): HttpResponseInit {
  return { status: asset.status, headers: { ...asset.headers }, ...(asset.body ? { body: asset.body } : {}) };
}

/** The sign-in authority the console may call (SIGNALBOX_CONSOLE_AUTHORITY), read once. */
let signInAuthority: { readonly value: string | undefined } | undefined;

export async function handleConsole(request: HttpRequest, folder: string = defaultConsoleFolder()): Promise<HttpResponseInit> {
  const url = new URL(request.url);
  const assetPath = request.params.path ?? '';
  // `/api/console` → `/api/console/`: the build's asset URLs are relative to the folder.
  if (assetPath === '' && !url.pathname.endsWith('/')) return toResponse(consoleRedirect(`${url.pathname}/`));
  signInAuthority ??= { value: consoleConfigFromEnv(process.env).signIn?.authority };
  const asset = await serveConsoleAsset(folder, request.method, assetPath, signInAuthority.value);
  if (asset) return toResponse(asset);
  const notFound = problem(404, 'Not found', `No console file ${url.pathname}`);
  return { status: notFound.status, headers: { ...notFound.headers }, body: JSON.stringify(notFound.body) };
}

app.http(CONSOLE_FUNCTION, { methods: ['GET', 'HEAD'], route: 'console/{*path}', authLevel: 'anonymous', handler: (request) => handleConsole(request) });
