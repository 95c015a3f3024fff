/**
 * The CLI is a thin layer over the HTTP API and the engine's pure parts: it never reaches into the hosts,
 * storage or leasing, and imports no Azure SDK, so it runs anywhere the API can be reached. The one
 * exception is @azure/identity, for the CLI's own sign-in (issue 27), in sign-in.ts only (its types, and the module loaded there
 * on demand): a command given a token or a key never loads it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const repo = join(__dirname, '..', '..');
const cliRoot = join(repo, 'src', 'cli');
const allowedFolders = ['src/cli', 'src/engine', 'src/client'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const specifier = /(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;

it('src/cli imports only itself, the engine, the API client and packages that are not Azure SDKs', () => {
  const offences: string[] = [];
  const files = sources(cliRoot);
  expect(files.length).toBeGreaterThan(5);
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
      const target = match[1] ?? match[2] ?? match[3]!;
      if (target.startsWith('.')) {
        const path = relative(repo, resolve(dirname(file), target))
          .split(sep)
          .join('/');
        if (!allowedFolders.some((folder) => path === folder || path.startsWith(`${folder}/`))) offences.push(`${relative(repo, file)} → ${path}`);
      } else if (/^@azure\/|^durable-functions$|^applicationinsights$/.test(target)) {
        const signIn = target === '@azure/identity' && relative(repo, file) === join('src', 'cli', 'sign-in.ts') && (match[2] !== undefined || match[0].startsWith('import type'));
        if (!signIn) offences.push(`${relative(repo, file)} → ${target}`);
      }
    }
  }
  expect(offences).toEqual([]);
});
