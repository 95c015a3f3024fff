/**
 * `npm run docs:build`: builds the documentation site and checks it. In order: renders the HTTP API
 * reference from the OpenAPI document (scripts/render-api-reference.ts) and the page of every CLI command
 * from the CLI's definition (scripts/render-cli-reference.ts), builds the site with VitePress
 * (which fails on a link to a page that does not exist), then checks every link and anchor of the built
 * HTML (scripts/check-docs-links.mjs). Any step failing fails the whole, with its exit code.
 *
 *   node scripts/build-docs.mjs [out folder]   (default docs/.vitepress/dist)
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(process.argv[2] ?? join(repo, 'docs', '.vitepress', 'dist'));
const bin = (name) => join(repo, 'node_modules', '.bin', name);

const steps = [
  [bin('tsx'), ['scripts/render-api-reference.ts']],
  [bin('tsx'), ['scripts/render-cli-reference.ts']],
  [bin('vitepress'), ['build', 'docs', '--outDir', out]],
  [process.execPath, ['scripts/check-docs-links.mjs', out]],
];
for (const [command, args] of steps) {
  const { status, error } = spawnSync(command, args, { cwd: repo, stdio: 'inherit' });
  if (error) throw error;
  if (status !== 0) process.exit(status ?? 1);
}
