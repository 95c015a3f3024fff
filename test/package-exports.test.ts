/**
 * The public surface is explicit (issue 10, section 4): package.json `exports` names each entry point,
 * each maps to a source module that exists, and test doubles are exported from `signalbox/testing` only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as main from '../src';
import * as testing from '../src/testing';

const repo = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { main: string; exports: Record<string, string> };

it('maps every subpath to a compiled module whose source exists', () => {
  expect(Object.keys(manifest.exports).sort()).toEqual(['.', './functions', './leasing', './outbound', './package.json', './storage', './testing']);
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (subpath === './package.json') continue;
    expect(target).toMatch(/^\.\/dist\/.+\.js$/);
    expect(existsSync(join(repo, target.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
  }
  // The Functions host loads `main` by path; `./functions` is the same module.
  expect(`./${manifest.main}`).toBe(manifest.exports['./functions']);
});

it('exports no in-memory test double from the main entry point, and all of them from ./testing', () => {
  expect(Object.keys(main).filter((name) => /^InMemory|^createInMemoryPorts$|^ManualClock$/.test(name))).toEqual([]);
  expect(Object.keys(testing)).toEqual(
    expect.arrayContaining(['InMemoryInstanceStore', 'InMemoryInterestIndex', 'InMemoryLeaseProvider', 'InMemoryOperationStore', 'InMemoryWorkflowStore', 'createInMemoryPorts', 'ManualClock']),
  );
  expect(typeof main.Engine).toBe('function');
});
