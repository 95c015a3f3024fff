/**
 * @module The web console's static files (built by `npm run build` into dist/console), served by both
 * hosts: the local server at `/` and `/console/`, the Functions app at `/api/console/`. Only files inside
 * the built folder are ever read; the console holds no data, so these answers need no key.
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { problem } from './problem';

export interface ConsoleAssetResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Absent for HEAD and redirects. */
  readonly body?: Buffer;
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Everything the console loads comes from its own origin: scripts, styles and the API (`connect-src`).
 * Inline styles are allowed because Mermaid writes its SVG styles inline; no script is ever inline.
 */
function securityHeaders(signInAuthority: string | undefined): Record<string, string> {
  // The sign-in authority's origin too: the console reads its discovery document and redeems the code at its token endpoint.
  const connect = signInAuthority ? `'self' ${new URL(signInAuthority).origin}` : "'self'";
  return {
    'content-security-policy': `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src ${connect}; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'`,
    ...fixedSecurityHeaders,
  };
}
const fixedSecurityHeaders: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** The folder holding package.json, found upwards from here (src/host under tsx, dist/src/host built). */
export function packageRoot(start: string = __dirname): string {
  let folder = start;
  while (!existsSync(path.join(folder, 'package.json'))) {
    const parent = path.dirname(folder);
    if (parent === folder) return process.cwd();
    folder = parent;
  }
  return folder;
}

/** Where `npm run build` puts the console. */
export function defaultConsoleFolder(): string {
  return path.join(packageRoot(), 'dist', 'console');
}

function withBody(response: ReturnType<typeof problem>): ConsoleAssetResponse {
  return { status: response.status, headers: { ...response.headers }, body: Buffer.from(JSON.stringify(response.body)) };
}

/** A redirect to the console's folder URL (with its trailing slash, so the build's relative asset URLs resolve). */
export function consoleRedirect(location: string): ConsoleAssetResponse {
  return { status: 302, headers: { location, 'cache-control': 'no-cache' } };
}

/**
 * The local server's console paths: `/` and `/console` lead to `/console/`, whose files are the build's.
 * Undefined for any other path, which the server answers as before (the API, or a problem+json 404).
 */
export async function serveLocalConsole(folder: string, method: string, pathname: string, signInAuthority?: string): Promise<ConsoleAssetResponse | undefined> {
  const upper = method.toUpperCase();
  if ((pathname === '/' || pathname === '/console') && (upper === 'GET' || upper === 'HEAD')) return consoleRedirect('/console/');
  if (!pathname.startsWith('/console/')) return undefined;
  return serveConsoleAsset(folder, method, pathname.slice('/console/'.length), signInAuthority);
}

/**
 * The answer for `assetPath` (relative to the console's root, '' for index.html), or undefined when no
 * such file exists, so the caller answers as it does for any unknown path.
 */
/** `signInAuthority`: the OpenID Connect authority the console signs in with (SIGNALBOX_CONSOLE_AUTHORITY), which it may then call. */
export async function serveConsoleAsset(folder: string, method: string, assetPath: string, signInAuthority?: string): Promise<ConsoleAssetResponse | undefined> {
  const upper = method.toUpperCase();
  let relative: string;
  try {
    relative = decodeURIComponent(assetPath.replace(/^\/+/, '')) || 'index.html';
  } catch {
    return undefined;
  }
  // No climbing out of the folder, no hidden files, no odd characters: the build has none of these.
  const segments = relative.split('/');
  if (relative.includes('\0') || relative.includes('\\') || segments.some((segment) => segment === '' || segment.startsWith('.'))) return undefined;
  const root = path.resolve(folder);
  const file = path.resolve(root, ...segments);
  if (!file.startsWith(root + path.sep)) return undefined;

  const details = await stat(file).catch(() => undefined);
  if (!details?.isFile()) {
    if (relative === 'index.html') return withBody(problem(503, 'Console not built', 'The web console has not been built: run `npm run build`'));
    return undefined;
  }
  if (upper !== 'GET' && upper !== 'HEAD') return withBody(problem(405, 'Method not allowed', `${upper} is not allowed on the console's files`));
  const headers: Record<string, string> = {
    ...securityHeaders(signInAuthority),
    'content-type': contentTypes[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
    'content-length': String(details.size),
    // Vite puts a content hash in every name under assets/, so those never change; index.html does.
    'cache-control': segments[0] === 'assets' ? 'public, max-age=31536000, immutable' : 'no-cache',
  };
  return upper === 'HEAD' ? { status: 200, headers } : { status: 200, headers, body: await readFile(file) };
}
