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

/**
 * Inside the engine, deciding sits below the runtime (docs/architecture.md): a decision takes the instance
 * as loaded and returns a Decision; it never reaches the run loop, the facade, the relay, the stores or the
 * operation fan-out. Checked on the direct relative imports of every decision module.
 */
const decisionModules = /^src\/engine\/(decide-[a-z-]+|decision|decision-trace|run-steps|enter-state|held-triggers|causal-budget|instance-changes|child-cascade|interests|merge-patch)\.ts$/;
const runtimeModules =
  /^src\/engine\/(instance-runtime|engine|engine-options|outbox-relay|workflow-service|workflow-version-cache|migrations-and-bulk-actions|action-call-journal|in-process-timers|ports|paging|operations\/.*|events\/event-(delivery|dispatcher))\.ts$/;

it('a decision imports neither the runtime, nor the facade, nor the ports', () => {
  const offences: string[] = [];
  const engineFiles = sources(join(repo, 'src/engine')).map((file) => relative(repo, file).split(sep).join('/'));
  const deciding = engineFiles.filter((path) => decisionModules.test(path));
  // The pattern must keep finding the decisions, or this test would pass by checking nothing.
  expect(deciding.length).toBeGreaterThanOrEqual(15);
  for (const path of deciding) {
    for (const match of readFileSync(join(repo, path), 'utf8').matchAll(specifier)) {
      const target = relative(repo, resolve(dirname(join(repo, path)), match[1] ?? match[2] ?? match[3] ?? ''))
        .split(sep)
        .join('/');
      const file = target.endsWith('.ts') ? target : `${target}.ts`;
      if (runtimeModules.test(file)) offences.push(`${path} → ${file}`);
    }
  }
  expect(offences).toEqual([]);
});
