/**
 * Dependencies point inward (DEVELOPERS layout): functions/ and src/host use the engine, leasing,
 * storage and outbound; the engine uses only itself. src/outbound implements the engine's outbound
 * port (src/engine/outbound-port.ts), so it may use engine types; the engine never imports it. Storage and leasing are the two Azure adapters and share their
 * helpers: leasing translates SDK errors and encodes names with storage's, and storage's factory builds
 * the lease provider from the same connection. Checked on every relative import of every source file.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const repo = join(__dirname, '..');
const allowed: Record<string, readonly string[]> = {
  'src/engine': ['src/engine'],
  'src/testing': ['src/testing', 'src/engine'],
  'src/leasing': ['src/leasing', 'src/storage', 'src/engine'],
  'src/storage': ['src/storage', 'src/leasing', 'src/engine'],
  'src/outbound': ['src/outbound', 'src/engine'],
  'src/host': ['src/host', 'src/storage', 'src/leasing', 'src/outbound', 'src/engine'],
  functions: ['functions', 'src/host', 'src/storage', 'src/leasing', 'src/outbound', 'src/engine'],
  // The typed client stands alone (the CLI and the web console import it): generated types and openapi-fetch.
  'src/client': ['src/client'],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function layerOf(file: string): string | undefined {
  const path = relative(repo, file).split(sep).join('/');
  return Object.keys(allowed).find((layer) => path === layer || path.startsWith(`${layer}/`));
}

const specifier = /(?:import|export)[^'"]*?from\s+['"](\.[^'"]*)['"]|import\(\s*['"](\.[^'"]*)['"]\s*\)|require\(\s*['"](\.[^'"]*)['"]\s*\)/g;

it('every relative import points inward', () => {
  const offences: string[] = [];
  for (const layer of Object.keys(allowed)) {
    for (const file of sources(join(repo, layer))) {
      for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
        const target = resolve(dirname(file), match[1] ?? match[2] ?? match[3] ?? '');
        const targetLayer = layerOf(target);
        if (!targetLayer || !allowed[layer]!.includes(targetLayer)) offences.push(`${relative(repo, file)} → ${relative(repo, target)}`);
      }
    }
  }
  expect(offences).toEqual([]);
});
