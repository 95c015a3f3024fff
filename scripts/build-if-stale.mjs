// `npm start` runs this first (prestart), so the single command `npm ci && npm start` runs compiled
// JavaScript (`node dist/src/host/local/main.js`: about half the memory of running the TypeScript under tsx,
// and a faster start; figures in the README, "Quick start"): it compiles with `tsc -p tsconfig.build.json` when
// dist/ is missing or older than any source file (src/, functions/, the tsconfigs, package.json), and
// otherwise does nothing (a few milliseconds of stat calls). `npm run build` compiles unconditionally.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = join(root, 'dist', 'src', 'host', 'local', 'main.js');

/** The newest modification time under `path` (a file or a directory, recursively). */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted file changes its directory
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const sources = ['src', 'functions', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((name) => join(root, name));
const builtAt = existsSync(output) ? statSync(output).mtimeMs : 0;
if (builtAt > 0 && sources.every((source) => newest(source) <= builtAt)) process.exit(0);

console.log(builtAt > 0 ? 'Sources changed: compiling (tsc -p tsconfig.build.json)…' : 'Compiling Signalbox once (tsc -p tsconfig.build.json)…');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
// Mark the build as current even if tsc left this file's time as it was.
const now = new Date();
utimesSync(output, now, now);
