/**
 * @module The web console on Azure: one anonymous HTTP function serving the built static files at
 * `/api/console/` (the host's route prefix is `api`, which the API keeps; the app root would need the
 * prefix removed for every route). The files hold no data and the console calls the API with the
 * function key the user enters, so anonymous access reveals nothing.
 *
 * The Functions host tries HTTP routes in the order of their function names, first match winning, and
 * the problem+json catch-all (`notFound`, route `{*path}`) also matches `console/...`. This function's
 * name therefore has to sort before `notFound`; test/functions/registration.test.ts checks it.
 */
import { app, type HttpRequest, type HttpResponseInit } from '@azure/functions';
import { consoleRedirect, defaultConsoleFolder, serveConsoleAsset, type ConsoleAssetResponse } from '../src/host/console-assets';
import { problem } from '../src/host/problem';
import { toHttpResponse } from './http';

export const CONSOLE_FUNCTION = 'console';

function toResponse(asset: ConsoleAssetResponse): HttpResponseInit {
  return { status: asset.status, headers: { ...asset.headers }, ...(asset.body ? { body: asset.body } : {}) };
}

export async function handleConsole(request: HttpRequest, folder: string = defaultConsoleFolder()): Promise<HttpResponseInit> {
  const url = new URL(request.url);
  const assetPath = request.params.path ?? '';
  // `/api/console` → `/api/console/`: the build's asset URLs are relative to the folder.
  if (assetPath === '' && !url.pathname.endsWith('/')) return toResponse(consoleRedirect(`${url.pathname}/`));
  const asset = await serveConsoleAsset(folder, request.method, assetPath);
  return asset ? toResponse(asset) : toHttpResponse(problem(404, 'Not found', `No console file ${url.pathname}`));
}

app.http(CONSOLE_FUNCTION, { methods: ['GET', 'HEAD'], route: 'console/{*path}', authLevel: 'anonymous', handler: (request) => handleConsole(request) });
