/**
 * `npm run start:func` (after `npm run build`): runs the Functions app under Azure Functions Core Tools
 * on Azurite. Copies local.settings.sample.json to local.settings.json when there is none, starts
 * Azurite on its standard ports (10000-10002, what UseDevelopmentStorage=true points at) with its data
 * under ./.azurite, unless one already listens there, then runs `func start` and stops Azurite after it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ports = { blobPort: 10000, queuePort: 10001, tablePort: 10002 };

function funcIsInstalled() {
  const probe = spawnSync('func', ['--version'], { stdio: 'ignore', shell: process.platform === 'win32' });
  return !probe.error && probe.status === 0;
}

function isListening(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The compiled Azurite launcher (npm run build made it; it resolves Azurite from the package). */
function loadAzuriteLauncher() {
  const require = createRequire(import.meta.url);
  return require(path.join(root, 'dist', 'src', 'host', 'local', 'azurite.js'));
}

if (!funcIsInstalled()) {
  console.error(
    [
      'Azure Functions Core Tools (`func`) is not on PATH.',
      'Install version 4 (https://learn.microsoft.com/azure/azure-functions/functions-run-local), then run `npm run start:func` again.',
      'Without Core Tools, `npm start` serves the same API from the local server.',
    ].join('\n'),
  );
  process.exit(1);
}

const settings = path.join(root, 'local.settings.json');
if (!existsSync(settings)) {
  copyFileSync(path.join(root, 'local.settings.sample.json'), settings);
  console.log('Created local.settings.json from local.settings.sample.json');
}

let azurite;
const listening = await Promise.all(Object.values(ports).map(isListening));
if (listening.every(Boolean)) {
  console.log('Azurite (or another storage emulator) already listens on 10000-10002: using it');
} else if (listening.some(Boolean)) {
  console.error('Some of the ports 10000-10002 are taken by something else; free them (or stop the other emulator) and retry.');
  process.exit(1);
} else {
  const { startAzurite } = loadAzuriteLauncher();
  azurite = await startAzurite({ location: path.join(root, '.azurite'), ...ports });
  console.log('Azurite started on 10000-10002 (data in ./.azurite)');
}

const func = spawn('func', ['start'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  await azurite?.stop();
  process.exit(code);
}
// Ctrl+C reaches `func` too (same process group); wait for it to exit, then stop Azurite.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => func.kill(signal));
func.on('exit', (code, signal) => void stop(code ?? (signal ? 1 : 0)));
func.on('error', (error) => {
  console.error(`Could not run func: ${error.message}`);
  void stop(1);
});
