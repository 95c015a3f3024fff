/**
 * The determinism boundary of the orchestrators, in the spirit of Temporal's `disallowedModules`: they
 * may import durable-functions, pure engine modules and the activity contract, nothing else (no I/O
 * module, no SDK, no settings). Checked on the source text, so a new import fails here first.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const orchestratorFiles = ['functions/operation-orchestrator.ts', 'functions/apply-operation-batch.ts', 'functions/event-delivery-orchestrator.ts', 'functions/timer-orchestrator.ts'];
const allowed = new Set([
  'durable-functions',
  '../src/engine/operations/operation',
  '../src/engine/operations/operation-cost',
  '../src/engine/operations/fan-out',
  '../src/engine/model/enums',
  '../src/host/contracts/operation-activities',
  '../src/host/contracts/event-activities',
  '../src/host/contracts/timer-activities',
  '../src/host/contracts/tenant-scope',
  './apply-operation-batch',
]);
/** Allowed modules' own runtime imports, which run inside the orchestrator too. */
const allowedTransitive: Record<string, string[]> = {
  'src/engine/operations/operation.ts': ['./operation-totals', './operation-fit'],
  'src/engine/operations/operation-totals.ts': ['../model/enums', './operation-cost'],
  'src/engine/operations/operation-fit.ts': ['./operation-totals'],
  'src/engine/operations/operation-cost.ts': [],
  'src/engine/operations/fan-out.ts': ['./operation'],
  'src/engine/model/enums.ts': ['zod'],
  'src/host/contracts/operation-activities.ts': ['../../engine/operations/fan-out'],
  'src/host/contracts/event-activities.ts': [],
  'src/host/contracts/timer-activities.ts': [],
  'src/host/contracts/tenant-scope.ts': [],
};

function imports(file: string): Array<{ specifier: string; typeOnly: boolean }> {
  const source = readFileSync(path.join(root, file), 'utf8');
  const found: Array<{ specifier: string; typeOnly: boolean }> = [];
  for (const match of source.matchAll(/^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
    found.push({ specifier: match[3]!, typeOnly: Boolean(match[2]) });
  }
  for (const match of source.matchAll(/\b(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push({ specifier: match[1]!, typeOnly: false });
  return found;
}

describe('orchestrator determinism boundary', () => {
  it.each(orchestratorFiles)('%s imports only durable-functions and pure modules', (file) => {
    const specifiers = imports(file).map((entry) => entry.specifier);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((specifier) => !allowed.has(specifier))).toEqual([]);
  });

  it.each(Object.entries(allowedTransitive))('%s, which the orchestrators load, imports nothing impure at run time', (file, expected) => {
    expect(
      imports(file)
        .filter((entry) => !entry.typeOnly)
        .map((entry) => entry.specifier),
    ).toEqual(expected);
  });

  it.each(orchestratorFiles)('%s reads no clock, randomness, environment or timers', (file) => {
    const code = readFileSync(path.join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(code).not.toMatch(/\bDate\b|Math\.random|process\.|setTimeout|setInterval|crypto|performance\.now|\bawait\b|\basync\b/);
  });
});
