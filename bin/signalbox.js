#!/usr/bin/env node
/**
 * The `signalbox` command. It runs the compiled CLI (dist/, from `npm run build` or a published package)
 * when that is at least as new as every source file, and otherwise the TypeScript source through tsx's
 * require hook, so a fresh clone works right after `npm ci` with no build step and an edit is never
 * shadowed by an older build. The CommonJS hook is used rather than `node --import tsx` because it
 * starts several times faster (no loader thread).
 */
'use strict';
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const compiled = join(root, 'dist', 'src', 'cli', 'main.js');
const source = join(root, 'src', 'cli', 'main.ts');

function newestModification(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestModification(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function compiledIsCurrent() {
  if (!existsSync(compiled)) return false;
  if (!existsSync(source)) return true; // an installed package: there is only dist/
  return statSync(compiled).mtimeMs >= newestModification(join(root, 'src'));
}

// `signalbox instances | head`: a reader that stops early is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

let cli;
if (compiledIsCurrent()) {
  cli = require(compiled);
} else if (existsSync(source)) {
  require('tsx/cjs/api').register();
  cli = require(source);
} else {
  process.stderr.write('signalbox: dist/ is missing; run `npm run build` first\n');
  process.exit(2);
}
cli.runCli(process.argv.slice(2)).then((exitCode) => {
  process.exitCode = exitCode;
});
