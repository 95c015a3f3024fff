/**
 * The Azure Developer CLI wiring: azure.yaml points azd at infra/bicep and deploys service `api` as a
 * TypeScript function app; main.parameters.json covers main.bicep's parameters with the same defaults;
 * .funcignore keeps what remote build needs and leaves out what it must not ship.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { declaration, declarations, Node, repoRoot, stringValue, template } from './bicep';

type YamlMap = { [key: string]: string | YamlMap };

/** Block-mapping subset of YAML (what azure.yaml uses): `key: value` and nested maps by indentation. */
function parseYamlMaps(text: string): YamlMap {
  const root: YamlMap = {};
  const stack: { indent: number; map: YamlMap }[] = [{ indent: -1, map: root }];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+#.*$/, '').replace(/^\s*#.*$/, '');
    if (!line.trim()) continue;
    const indent = line.length - line.trimStart().length;
    const match = /^([A-Za-z0-9_.-]+):(?:\s+(.*))?$/.exec(line.trim());
    if (!match) throw new Error(`azure.yaml: unsupported line ${JSON.stringify(raw)}`);
    while (stack[stack.length - 1]!.indent >= indent) stack.pop();
    const parent = stack[stack.length - 1]!.map;
    const [, key, value] = match;
    if (value === undefined || value === '') {
      const child: YamlMap = {};
      parent[key!] = child;
      stack.push({ indent, map: child });
    } else {
      parent[key!] = value.replace(/^(['"])(.*)\1$/, '$2');
    }
  }
  return root;
}

const azureYaml = parseYamlMaps(readFileSync(join(repoRoot, 'azure.yaml'), 'utf8'));
const services = azureYaml.services as YamlMap;
const api = services?.api as YamlMap;

describe('azure.yaml', () => {
  it('provisions infra/bicep/main.bicep with Bicep', () => {
    const infra = azureYaml.infra as YamlMap;
    expect(infra).toEqual(expect.objectContaining({ provider: 'bicep', path: 'infra/bicep', module: 'main' }));
    expect(existsSync(join(repoRoot, 'infra/bicep/main.bicep'))).toBe(true);
    expect(existsSync(join(repoRoot, 'infra/bicep/main.parameters.json'))).toBe(true);
  });

  it('deploys one service, api, from the repository root as a TypeScript function app', () => {
    expect(Object.keys(services)).toEqual(['api']);
    expect(api).toEqual(expect.objectContaining({ project: '.', language: 'ts', host: 'function' }));
  });

  it('builds remotely, which azd only allows when .funcignore leaves node_modules out', () => {
    expect(api.remoteBuild).toBe('true');
    expect(ignored('node_modules', true)).toBe(true);
  });

  it("matches the function app's azd-service-name tag", () => {
    const main = template('main.bicep');
    expect(stringValue(declaration(main, 'variable_declaration', 'serviceName').body!)).toBe('api');
  });
});

/** Minimal .gitignore-style matcher (what azd applies to .funcignore): no negations are used in the file. */
const patterns = readFileSync(join(repoRoot, '.funcignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

function ignored(relativePath: string, isDir: boolean): boolean {
  const segments = relativePath.split('/');
  return patterns.some((pattern) => {
    if (pattern.startsWith('!')) throw new Error('.funcignore: negations are not supported by this check');
    const dirOnly = pattern.endsWith('/');
    const body = pattern.replace(/^\//, '').replace(/\/$/, '');
    const regex = new RegExp(
      `^${body
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*')}$`,
    );
    if (body.includes('/')) return regex.test(relativePath) && (!dirOnly || isDir);
    // A pattern without a slash matches any path segment; a directory match excludes what is below it.
    return segments.some((segment, index) => regex.test(segment) && (!dirOnly || isDir || index < segments.length - 1));
  });
}

describe('.funcignore', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { main: string; scripts: Record<string, string> };

  it('keeps what the Functions host and the remote build need', () => {
    const kept: [string, boolean][] = [
      ['host.json', false],
      ['package.json', false],
      ['package-lock.json', false],
      ['tsconfig.json', false],
      ['tsconfig.build.json', false],
      ['src/host/settings.ts', false],
      ['src/storage/names.ts', false],
      ['functions/index.ts', false],
      [pkg.main, false],
    ];
    expect(kept.filter(([file, isDir]) => ignored(file, isDir)).map(([file]) => file)).toEqual([]);
  });

  it('leaves out tests, benchmarks, infra, local data and secrets', () => {
    const left: [string, boolean][] = [
      ['node_modules', true],
      ['test/infra/azd.test.ts', false],
      ['bench/engine.bench.ts', false],
      ['infra/bicep/main.bicep', false],
      ['.azurite', true],
      ['.azure', true],
      ['local.settings.json', false],
      ['coverage', true],
    ];
    expect(left.filter(([file, isDir]) => !ignored(file, isDir)).map(([file]) => file)).toEqual([]);
  });

  it('serves the compiled entry point that npm run build produces', () => {
    expect(pkg.main).toMatch(/^dist\/.+\.js$/);
    expect(pkg.scripts.build).toContain('tsconfig.build.json');
  });
});

describe('main.parameters.json', () => {
  const file = JSON.parse(readFileSync(join(repoRoot, 'infra/bicep/main.parameters.json'), 'utf8')) as {
    parameters: Record<string, { value: unknown }>;
  };
  const main = template('main.bicep');
  const params = declarations(main, 'parameter_declaration');

  const literalText = (node: Node | undefined): string | undefined => (node === undefined ? undefined : node.type === 'string' ? stringValue(node) : node.text);

  it('sets only parameters main.bicep declares, and every parameter without a default', () => {
    const declared = params.map((p) => p.name);
    expect(Object.keys(file.parameters).filter((name) => !declared.includes(name))).toEqual([]);
    const required = params.filter((p) => p.body === undefined).map((p) => p.name);
    expect(required.filter((name) => !(name in file.parameters))).toEqual([]);
  });

  it('maps every parameter of main.bicep, so each can be set with azd env set', () => {
    const declared = params.map((p) => p.name);
    expect(declared.filter((name) => !(name in file.parameters))).toEqual([]);
  });

  it('maps the environment name and location to the azd environment', () => {
    expect(file.parameters.environmentName?.value).toBe('${AZURE_ENV_NAME}');
    expect(file.parameters.location?.value).toBe('${AZURE_LOCATION}');
  });

  it('uses the same fallback as the Bicep default wherever it substitutes ${VAR=default}', () => {
    for (const [name, { value }] of Object.entries(file.parameters)) {
      const match = typeof value === 'string' ? /^\$\{([A-Z0-9_]+)(?:=(.*))?\}$/.exec(value) : null;
      expect({ name, substituted: match !== null }).toEqual({ name, substituted: true });
      const fallback = match![2];
      if (fallback === undefined) continue;
      const bicepDefault = literalText(params.find((p) => p.name === name)!.body);
      expect({ name, fallback }).toEqual({ name, fallback: bicepDefault });
    }
  });
});

describe('the deployment guide (docs/guides/deploying-to-azure.md)', () => {
  const doc = readFileSync(join(repoRoot, 'docs', 'guides', 'deploying-to-azure.md'), 'utf8');
  const parameters = JSON.parse(readFileSync(join(repoRoot, 'infra/bicep/main.parameters.json'), 'utf8')) as {
    parameters: Record<string, { value: string }>;
  };

  it('is a page titled "Deploying to Azure" with the commands it promises', () => {
    expect(doc.startsWith('# Deploying to Azure\n')).toBe(true);
    for (const command of ['azd auth login', 'azd up', 'az functionapp keys list', 'x-functions-key', '?code=', 'azd down --purge']) {
      expect(doc).toContain(command);
    }
  });

  // The durable backend's variables are documented with the backends, on their own page (issue 41).
  const scalingOut = readFileSync(join(repoRoot, 'docs/guides/scaling-out.md'), 'utf8');
  const costGuide = readFileSync(join(repoRoot, 'docs/guides/cost.md'), 'utf8');

  it('documents every azd environment variable the parameters file reads, with its parameter and default', () => {
    for (const [name, { value }] of Object.entries(parameters.parameters)) {
      const match = /^\$\{([A-Z0-9_]+)(?:=(.*))?\}$/.exec(value)!;
      const variable = match[1]!;
      if (variable === 'AZURE_ENV_NAME' || variable === 'AZURE_LOCATION') continue;
      const rowIn = (text: string) => text.split('\n').find((line) => line.startsWith(`| \`${variable}\``));
      const row = rowIn(doc) ?? rowIn(scalingOut) ?? rowIn(costGuide);
      expect({ variable, row: row !== undefined }).toEqual({ variable, row: true });
      expect(row).toContain(`\`${name}\``);
      if (match[2]) expect(row).toContain(match[2]);
    }
  });

  it('names only outputs main.bicep has', () => {
    const outputs = declarations(template('main.bicep'), 'output_declaration').map((o) => o.name);
    const mentioned = [...doc.matchAll(/`((?:AZURE|SIGNALBOX)_[A-Z_]+)`/g)].map((m) => m[1]!);
    const envVars = Object.values(parameters.parameters).map(({ value }) => /^\$\{([A-Z0-9_]+)/.exec(value)![1]!);
    const settings = ['AZURE_CLIENT_ID', 'SIGNALBOX_TASK_HUB', 'SIGNALBOX_ALLOWED_HOSTS'];
    expect(mentioned.filter((name) => !outputs.includes(name) && !envVars.includes(name) && !settings.includes(name))).toEqual([]);
  });
});
