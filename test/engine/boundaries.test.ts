/**
 * The engine's determinism boundary, in the spirit of Temporal's `disallowedModules`: src/engine imports
 * no Azure SDK (except the one lazy @azure/identity import for managed-identity tokens) and no Node I/O
 * modules, so it runs anywhere and its tests need no Azure.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..', 'src', 'engine');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const specifier = /(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;
// @opentelemetry/api is the vendor-neutral tracing API: a no-op until a host registers a provider.
// luxon (issue 13: ISO 8601 durations, time zones of business calendars) is pure date arithmetic, no I/O.
const allowedPackages = new Set(['zod', 'jsonata', '@opentelemetry/api', 'luxon']);

describe('src/engine boundaries', () => {
  it('imports only zod, jsonata, @opentelemetry/api, luxon and itself; @azure/identity only lazily, in the managed-identity policy', () => {
    const offences: string[] = [];
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(specifier)) {
        const target = match[1] ?? match[2] ?? match[3] ?? '';
        const where = relative(root, file);
        if (target.startsWith('.')) continue;
        if (allowedPackages.has(target)) continue;
        if (target === '@azure/identity' && where === join('external-service', 'managed-identity-policy.ts') && match[2]) continue;
        offences.push(`${where} imports ${target}`);
      }
    }
    expect(offences).toEqual([]);
  });
});
