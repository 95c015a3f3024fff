/**
 * Dependencies point inward (DEVELOPERS layout): functions/ and src/host use the engine, leasing,
 * storage and outbound; the engine uses only itself. src/outbound implements the engine's outbound
 * port (src/engine/ports/outbound-port.ts), so it may use engine types; the engine never imports it. Storage and leasing are the two Azure adapters and share their
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
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(path) ? [path] : [];
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
 * Inside the engine, the folders are layers (docs/architecture.md), and a layer imports only the layers
 * below it: model ← expressions, timers ← definition ← steps ← decide ← events, operations, analysis ←
 * ports ← search ← admission ← runtime ← the facade (the files at the top of src/engine). So a decision never reaches the run
 * loop, the facade, the relay, the stores or the operation fan-out; only the runtime and the facade
 * import the ports. Checked on the direct relative imports of every engine module.
 */
const engineLayerRank: Record<string, number> = {
  model: 0,
  expressions: 1,
  timers: 1,
  definition: 2,
  steps: 3,
  decide: 4,
  events: 5,
  operations: 5,
  analysis: 5,
  // Human tasks: opened and closed with every change, their commands and the inbox index's rows (read by the runtime and the facade).
  tasks: 5,
  ports: 6,
  // Finding instances: reads the ports' types, and the runtime keeps its rows with every save.
  search: 6.5,
  // Flow control between the lease and the decision: reads the ports and the search index's claims.
  admission: 6.7,
  runtime: 7,
  facade: 8,
};

/** The engine layer of a path under src/engine: its first folder, or `facade` for the files at the top. */
function engineLayerOf(path: string): string {
  const parts = path.slice('src/engine/'.length).split('/');
  if (parts.length === 1) return 'facade';
  const layer = parts[0]!;
  if (!(layer in engineLayerRank)) throw new Error(`src/engine/${layer} is no known layer: give it a rank in engineLayerRank`);
  return layer;
}

it('inside the engine, each layer imports only the layers below it (a decision imports neither the runtime, nor the facade, nor the ports)', () => {
  const offences: string[] = [];
  const engineFiles = sources(join(repo, 'src/engine')).map((file) => relative(repo, file).split(sep).join('/'));
  // Every layer must keep holding files, or this test would pass by checking nothing.
  const populated = new Set(engineFiles.map(engineLayerOf));
  expect([...populated].sort()).toEqual(Object.keys(engineLayerRank).sort());
  for (const path of engineFiles) {
    const from = engineLayerOf(path);
    for (const match of readFileSync(join(repo, path), 'utf8').matchAll(specifier)) {
      const target = relative(repo, resolve(dirname(join(repo, path)), match[1] ?? match[2] ?? match[3] ?? ''))
        .split(sep)
        .join('/');
      if (!target.startsWith('src/engine/')) continue;
      const to = engineLayerOf(statSync(join(repo, target), { throwIfNoEntry: false })?.isDirectory() ? `${target}/index.ts` : `${target}.ts`);
      if (from !== to && engineLayerRank[to]! >= engineLayerRank[from]!) offences.push(`${path} (${from}) → ${target} (${to})`);
    }
  }
  expect(offences).toEqual([]);
});

/**
 * Code outside src/engine imports the engine's folders (their index.ts), not the files inside them, so a
 * file can move within its layer without touching its users. The orchestrators and the activity contracts
 * they load are the exception: their determinism boundary (test/functions/determinism.test.ts) names the
 * pure files they may load, and a folder's index would load the whole layer into the orchestrator.
 */
const deepImportsAllowed = new Set([
  'functions/operation-orchestrator.ts',
  'functions/apply-operation-batch.ts',
  'functions/event-delivery-orchestrator.ts',
  'functions/timer-orchestrator.ts',
  'src/host/contracts/operation-activities.ts',
  'src/host/contracts/event-activities.ts',
  'src/host/contracts/timer-activities.ts',
]);

it('code outside the engine imports its folders, not the files inside them', () => {
  const offences: string[] = [];
  const outside = ['src', 'functions', 'test', 'bench', 'scripts', 'console/src'].flatMap((dir) => sources(join(repo, dir)));
  const engineRoot = join(repo, 'src/engine');
  let engineImports = 0;
  for (const file of outside) {
    const path = relative(repo, file).split(sep).join('/');
    if (path.startsWith('src/engine/') || deepImportsAllowed.has(path)) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
      const target = resolve(dirname(file), match[1] ?? match[2] ?? match[3] ?? '');
      if (!target.startsWith(`${engineRoot}${sep}`) && target !== engineRoot) continue;
      engineImports += 1;
      const inside = relative(engineRoot, target).split(sep);
      if (inside.length > 1) offences.push(`${path} → src/engine/${inside.join('/')}`);
    }
  }
  // The walk must keep finding the engine's users, or this test would pass by checking nothing.
  expect(engineImports).toBeGreaterThan(100);
  expect(offences).toEqual([]);
});
