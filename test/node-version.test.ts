/**
 * Issue 24, group 1: "no EBADENGINE warnings on the documented version". One Node.js version is
 * documented, and everything agrees on it: package.json `engines`, the README's Quick start, the
 * documentation's Getting started page and the deployment guide's prerequisites, the Bicep default and the values its `SIGNALBOX_NODE_VERSION` row offers; and every
 * package `npm ci` installs (package-lock.json) accepts that version, so `npm ci` on it warns nothing.
 * (Three Azure Monitor telemetry packages declare Node >= 22, which is why the documented version is 22.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { declaration, stringValue, template, arrayItems } from './infra/bicep';

// semver is not a dependency of Signalbox (nor are its types): jest's and babel's dependencies bring it.
const semver = require('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
  major(version: string): number;
  minor(version: string): number;
};
const repo = join(__dirname, '..');
const readme = readFileSync(join(repo, 'README.md'), 'utf8');
const gettingStarted = readFileSync(join(repo, 'docs', 'getting-started', 'index.md'), 'utf8');
const deploying = readFileSync(join(repo, 'docs', 'guides', 'deploying-to-azure.md'), 'utf8');
/** A table row with one space either side of each cell (prettier pads the columns to one width). */
const tableRow = (line: string) => line.replace(/\s*(?<!\\)\|\s*/g, ' | ').trim();
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: Record<string, string> | string[]; optional?: boolean; os?: string[] }>;
};

const engines = manifest.engines.node;
const oldest = semver.minVersion(engines)!.version;
/** The documented version: every minor of its major from the oldest allowed on, as Azure runs the latest. */
const documented = [oldest, `${semver.major(oldest)}.999.0`];

it('documents one Node.js version, the oldest package.json engines allows', () => {
  expect(semver.major(oldest)).toBe(22);
  const minor = `${semver.major(oldest)}.${semver.minor(oldest)}`;
  // The README's Quick start, Getting started and the deployment prerequisites say the same version.
  expect(readme).toContain(`Node.js ${minor} or later`);
  expect(gettingStarted).toContain(`Node.js ${minor} or later`);
  expect(deploying).toMatch(new RegExp(`Prerequisites[\\s\\S]*?- Node\\.js ${minor.replace('.', '\\.')} or later`));
  // Nothing offers Node 20 any more.
  for (const text of [readme, gettingStarted, deploying]) expect(text).not.toMatch(/Node(?:\.js)? 20 (?:works|too|or later)|runs on Node 20/);
});

it('every package npm ci installs accepts the documented version: no EBADENGINE warning there', () => {
  const refusing: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (where === '') continue;
    const node = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
    if (!node) continue;
    for (const version of documented) {
      if (!semver.satisfies(version, node)) refusing.push(`${where} (${node}) refuses Node ${version}`);
    }
  }
  expect(refusing).toEqual([]);
});

it('the Azure deployment runs the documented major by default and offers only versions engines allows', () => {
  for (const file of ['main.bicep', 'modules/functionapp.bicep']) {
    const param = declaration(template(file), 'parameter_declaration', 'nodeVersion');
    expect(param.body && stringValue(param.body)).toBe(String(semver.major(oldest)));
    const allowed = param.decorators.find((d) => d.name === 'allowed');
    const versions = arrayItems(allowed?.args[0]).map((v) => stringValue(v));
    expect(versions.length).toBeGreaterThan(0);
    for (const version of versions) expect(semver.satisfies(`${version}.999.0`, engines)).toBe(true);
  }
  const parameters = readFileSync(join(repo, 'infra', 'bicep', 'main.parameters.json'), 'utf8');
  expect(parameters).toContain(`"\${SIGNALBOX_NODE_VERSION=${semver.major(oldest)}}"`);
  const row = deploying
    .split('\n')
    .map(tableRow)
    .find((line) => line.startsWith('| `SIGNALBOX_NODE_VERSION` |'));
  expect(row).toBe(
    `| \`SIGNALBOX_NODE_VERSION\` | \`nodeVersion\` | \`${semver.major(oldest)}\` | The Node.js runtime version: \`${semver.major(oldest)}\` (the only one offered: Signalbox's packages need Node ${semver.major(oldest)}) |`,
  );
});
