/**
 * Completes package-lock.json with the platform packages npm could not record.
 *
 * The registry these machines reach holds only the Linux builds of some native packages (@swc/core-*,
 * @unrs/resolver-binding-*), so `npm install` leaves their other-platform optional dependencies out of the
 * lock, and `npm ci` then refuses the lock as out of sync. This adds an entry for each missing optional
 * dependency, with its version and the os/cpu its name declares, so `npm ci` skips it here (wrong
 * platform) and fetches it on a machine of that platform. Run it after `npm install` changes the lock:
 *   node scripts/complete-lockfile.mjs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const lockPath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const osNames = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const cpuNames = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'loong64', 'riscv64', 'mips64el', 'wasm32'];

/** os and cpu from a platform package's name, e.g. `core-linux-arm-gnueabihf` → linux, arm. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => osNames.includes(part));
  const cpu = parts.find((part) => cpuNames.includes(part));
  return os && cpu ? { os, cpu } : undefined;
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const parentModules = location === '' ? 'node_modules' : `${location}/node_modules`;
    if (packages[`${parentModules}/${name}`] || packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(spec)) continue;
    packages[`node_modules/${name}`] = {
      version: spec,
      cpu: [platform.cpu],
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [platform.os],
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entr${added === 1 ? 'y' : 'ies'}`);
