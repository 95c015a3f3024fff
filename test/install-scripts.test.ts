/**
 * Issue 38: "the install-scripts warning on `npm ci` is explained", and gone. npm 11.16+ warns about every
 * installed package with an install script that package.json's `allowScripts` does not cover (npm 12 skips
 * those scripts). Every package of package-lock.json that has one is covered, every entry still names one
 * (no stale permission), entries are by name (an upgrade in the lock file keeps them), and
 * docs/guides/installing.md says what each script does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const repo = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
const guide = readFileSync(join(repo, 'docs', 'guides', 'installing.md'), 'utf8');

/** `node_modules/a/node_modules/@b/c` → `@b/c`. */
const packageName = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
const withScripts = [...new Set(Object.entries(lock.packages).flatMap(([path, entry]) => (path && entry.hasInstallScript ? [packageName(path)] : [])))].sort();
const allowed = manifest.allowScripts ?? {};

it('has packages with install scripts to cover (else this test checks nothing)', () => {
  expect(withScripts.length).toBeGreaterThan(0);
});

it("covers every installed package's install script in allowScripts, by name, and lists no other", () => {
  expect(Object.keys(allowed).sort()).toEqual(withScripts);
  for (const [entry, allow] of Object.entries(allowed)) expect([entry, typeof allow]).toEqual([entry, 'boolean']);
});

it('says in docs/guides/installing.md what each of them is for', () => {
  for (const name of withScripts) expect([name, guide.includes(`\`${name}\``)]).toEqual([name, true]);
});
