/**
 * The engine's determinism boundary, in the spirit of Temporal's `disallowedModules`: src/engine imports
 * no Azure SDK and no Node I/O modules, so it runs anywhere and its tests need no Azure. Outbound HTTP is
 * a port (src/engine/ports/outbound-port.ts) implemented in src/outbound on the Azure SDK's pipeline.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..', 'src', 'engine');
const outboundRoot = join(__dirname, '..', '..', 'src', 'outbound');

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
// Worker threads isolate expressions that cannot be bounded in-process (a heap limit, termination at the
// deadline); they are computation, not I/O, and only the expression worker pool uses them.
const allowedNodeModules = new Map([
  ['node:worker_threads', 'expressions/expression-worker-pool.ts'],
  ['cloudevents', 'events/cloud-event.ts'],
]);

describe('src/engine boundaries', () => {
  it('imports only zod, jsonata, @opentelemetry/api, luxon and itself (no Azure SDK, not even for outbound calls; node:worker_threads only in the expression worker pool, the CNCF cloudevents SDK only where lifecycle events are built)', () => {
    const offences: string[] = [];
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(specifier)) {
        const target = match[1] ?? match[2] ?? match[3] ?? '';
        const where = relative(root, file);
        if (target.startsWith('.')) continue;
        if (allowedPackages.has(target)) continue;
        if (allowedNodeModules.get(target) === where) continue;
        offences.push(`${where} imports ${target}`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('src/outbound loads @azure/identity only lazily, in managed-identity.ts (hosts without token steps never pay for it)', () => {
    const offences: string[] = [];
    for (const file of sources(outboundRoot)) {
      for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
        const target = match[1] ?? match[2] ?? match[3] ?? '';
        const where = relative(outboundRoot, file);
        if (target === '@azure/identity' && !(where === 'managed-identity.ts' && match[2])) offences.push(`${where} imports ${target}`);
      }
    }
    expect(offences).toEqual([]);
    expect(readFileSync(join(outboundRoot, 'managed-identity.ts'), 'utf8')).toContain("import('@azure/identity')");
  });
});
