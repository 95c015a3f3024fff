#!/usr/bin/env node
/**
 * `npm run reset`: deletes the local server's data (the embedded Azurite's folder: SIGNALBOX_AZURITE_LOCATION,
 * else ./.azurite), so the next `npm start` begins with no workflows, instances or operations. Refused
 * while a server runs on the folder (its Azurite holds the data in memory and would write it back).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const location = path.resolve(process.env.SIGNALBOX_AZURITE_LOCATION?.trim() || '.azurite');
const lockFile = path.join(location, 'signalbox-azurite.json'); // AZURITE_LOCK_FILE in src/host/local/azurite.ts

function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

if (!existsSync(location)) {
  console.log(`Nothing to reset: ${location} does not exist`);
  process.exit(0);
}
let lock;
try {
  lock = JSON.parse(readFileSync(lockFile, 'utf8'));
} catch {
  lock = undefined;
}
if (lock && isAlive(lock.serverPid)) {
  console.error(`The Signalbox server with pid ${lock.serverPid} is using ${location}: stop it (Ctrl-C) and run npm run reset again`);
  process.exit(1);
}
rmSync(location, { recursive: true, force: true });
console.log(`Deleted ${location}: the next npm start begins with no workflows, instances or operations`);
