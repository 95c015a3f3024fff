// `npm start` runs this first (prestart): a fresh clone has no dist/console, and the single command
// `npm ci && npm start` should still serve the web console. An existing build is left as it is
// (`npm run build:console` rebuilds it).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (existsSync(`${root}/dist/console/index.html`)) process.exit(0);
console.log('Building the web console (dist/console), once…');
const { build } = await import('vite');
await build({ configFile: `${root}/console/vite.config.mts`, logLevel: 'warn' });
