/**
 * A small reader for the Bicep templates in infra/bicep, on top of tree-sitter-bicep: no Bicep compiler
 * installs here, so the syntax tree is what the tests can check. Helpers walk declarations (params, vars,
 * resources, modules, outputs), their decorators and object properties.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

export const repoRoot = join(__dirname, '..', '..');
export const bicepRoot = join(repoRoot, 'infra', 'bicep');

/**
 * A syntax node: a plain copy of what tree-sitter returned. tree-sitter's native binding holds
 * process-wide state that breaks when a second copy of its JavaScript wrapper loads it, and Jest loads
 * modules afresh for every test file in a worker; so the parsing runs in a child process and the tests
 * walk these copies.
 */
export interface Node {
  readonly type: string;
  readonly isNamed: boolean;
  readonly isMissing: boolean;
  readonly startPosition: { readonly row: number; readonly column: number };
  readonly text: string;
  readonly children: readonly Node[];
  readonly namedChildren: readonly Node[];
  readonly namedChildCount: number;
  readonly previousNamedSibling: Node | null;
}

export interface Tree {
  readonly rootNode: Node;
}

type Wire = [type: string, named: 0 | 1, missing: 0 | 1, row: number, column: number, text: string, children: Wire[]];

const PARSE_SCRIPT = `
const Parser = require('tree-sitter');
const parser = new Parser();
parser.setLanguage(require('tree-sitter-bicep'));
const wire = (n) => [n.type, n.isNamed ? 1 : 0, n.isMissing ? 1 : 0, n.startPosition.row, n.startPosition.column, n.text, n.children.map(wire)];
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const trees = JSON.parse(input).map((source) =>
    wire(parser.parse(source, null, { bufferSize: Math.max(65536, source.length * 4) }).rootNode));
  process.stdout.write(JSON.stringify(trees));
});
`;

class CopiedNode implements Node {
  readonly children: CopiedNode[] = [];
  parent: CopiedNode | null = null;
  constructor(
    readonly type: string,
    readonly isNamed: boolean,
    readonly isMissing: boolean,
    readonly startPosition: { readonly row: number; readonly column: number },
    readonly text: string,
  ) {}
  get namedChildren(): CopiedNode[] {
    return this.children.filter((child) => child.isNamed);
  }
  get namedChildCount(): number {
    return this.namedChildren.length;
  }
  get previousNamedSibling(): CopiedNode | null {
    if (!this.parent) return null;
    const siblings = this.parent.namedChildren;
    const index = siblings.indexOf(this);
    return index > 0 ? siblings[index - 1]! : null;
  }
}

function fromWire([type, named, missing, row, column, text, children]: Wire, parent: CopiedNode | null): CopiedNode {
  const node = new CopiedNode(type, named === 1, missing === 1, { row, column }, text);
  node.parent = parent;
  for (const child of children) node.children.push(fromWire(child, node));
  return node;
}

/** Parses several sources with tree-sitter-bicep in one child process. */
export function parseBicepSources(sources: readonly string[]): Tree[] {
  const result = spawnSync(process.execPath, ['-e', PARSE_SCRIPT], {
    cwd: repoRoot,
    input: JSON.stringify(sources),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`tree-sitter-bicep failed: ${result.stderr || result.error?.message}`);
  return (JSON.parse(result.stdout) as Wire[]).map((wire) => ({ rootNode: fromWire(wire, null) }));
}

export function parseBicep(source: string): Tree {
  return parseBicepSources([source])[0]!;
}

export interface SyntaxProblem {
  readonly line: number; // 1-based
  readonly column: number; // 1-based
  readonly kind: 'ERROR' | 'MISSING';
  readonly text: string;
}

/** Every ERROR node and every MISSING (inserted by error recovery) node, in document order. */
export function syntaxProblems(tree: Tree): SyntaxProblem[] {
  const problems: SyntaxProblem[] = [];
  const visit = (node: Node): void => {
    if (node.type === 'ERROR' || node.isMissing) {
      problems.push({
        line: node.startPosition.row + 1,
        column: node.startPosition.column + 1,
        kind: node.isMissing ? 'MISSING' : 'ERROR',
        text: node.isMissing ? node.type : node.text.split('\n')[0]!.slice(0, 60),
      });
    }
    for (const child of node.children) visit(child);
  };
  visit(tree.rootNode);
  return problems;
}

/** Every .bicep file under infra/bicep, as paths relative to the repository root, sorted. */
export function bicepFiles(dir: string = bicepRoot): string[] {
  const found: string[] = [];
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.bicep')) found.push(relative(repoRoot, path));
    }
  };
  walk(dir);
  return found.sort();
}

export interface Template {
  readonly path: string; // relative to the repository root
  readonly source: string;
  readonly root: Node;
}

let cache: Map<string, Template> | undefined;

/** Every template under infra/bicep, parsed together once per test file. */
function allTemplates(): Map<string, Template> {
  if (!cache) {
    const files = bicepFiles();
    const sources = files.map((file) => readFileSync(join(repoRoot, file), 'utf8'));
    const trees = parseBicepSources(sources);
    cache = new Map(files.map((file, i) => [file, { path: file, source: sources[i]!, root: trees[i]!.rootNode }]));
  }
  return cache;
}

/** A template by its path relative to infra/bicep (e.g. `main.bicep`, `modules/storage.bicep`). */
export function template(pathInBicep: string): Template {
  const found = allTemplates().get(join('infra', 'bicep', pathInBicep));
  if (!found) throw new Error(`no template infra/bicep/${pathInBicep}`);
  return found;
}

export type DeclarationKind = 'parameter_declaration' | 'variable_declaration' | 'resource_declaration' | 'module_declaration' | 'output_declaration';

export interface Declaration {
  readonly kind: DeclarationKind;
  readonly name: string;
  readonly node: Node;
  /** Names of the decorators on it (`secure`, `description`, ...). */
  readonly decorators: readonly Decorator[];
  /** Resource type (`Microsoft.Web/sites@2024-04-01`) or module path; undefined for others. */
  readonly target?: string;
  /** The declaration's value: the body object (or `for` body object) for resources and modules, the expression otherwise. */
  readonly body?: Node;
  /** A reference to a resource deployed elsewhere (`resource x 'T' existing = {...}`). */
  readonly existing: boolean;
  /** Declared with a `for` loop. */
  readonly loop?: { readonly item: string; readonly over: Node };
}

export interface Decorator {
  readonly name: string;
  readonly args: readonly Node[];
}

function decoratorsBefore(node: Node): Decorator[] {
  const previous = node.previousNamedSibling;
  if (!previous || previous.type !== 'decorators') return [];
  return previous.namedChildren
    .filter((decorator) => decorator.type === 'decorator')
    .map((decorator) => {
      const call = decorator.namedChildren.find((child) => child.type === 'call_expression');
      const name = call?.namedChildren[0]?.text ?? decorator.namedChildren[0]?.text ?? '';
      const args = call?.namedChildren.find((child) => child.type === 'arguments')?.namedChildren ?? [];
      return { name, args };
    });
}

/** The object a resource or module declares: its body, or the body of its `for` loop, or the `if` body. */
function declaredObject(value: Node | undefined): Node | undefined {
  if (!value) return undefined;
  if (value.type === 'object') return value;
  if (value.type === 'for_statement' || value.type === 'if_statement') {
    const inner = [...value.namedChildren].reverse().find((child) => child.type === 'object' || child.type === 'if_statement');
    return declaredObject(inner);
  }
  return undefined;
}

export function declarations(tpl: Template, kind?: DeclarationKind): Declaration[] {
  const result: Declaration[] = [];
  for (const node of tpl.root.namedChildren) {
    if (
      node.type !== 'parameter_declaration' &&
      node.type !== 'variable_declaration' &&
      node.type !== 'resource_declaration' &&
      node.type !== 'module_declaration' &&
      node.type !== 'output_declaration'
    )
      continue;
    if (kind && node.type !== kind) continue;
    const [identifier, ...rest] = node.namedChildren;
    const name = identifier?.text ?? '';
    let target: string | undefined;
    let body: Node | undefined;
    let loop: Declaration['loop'];
    if (node.type === 'resource_declaration' || node.type === 'module_declaration') {
      const targetNode = rest.find((child) => child.type === 'string');
      target = targetNode ? stringValue(targetNode) : undefined;
      const value = rest[rest.length - 1];
      body = declaredObject(value);
      if (value?.type === 'for_statement') {
        const [item, over] = value.namedChildren;
        if (item && over) loop = { item: item.text, over };
      }
    } else if (node.type === 'output_declaration' || node.type === 'variable_declaration' || node.type === 'parameter_declaration') {
      const last = rest[rest.length - 1];
      body = last && last.type !== 'type' ? last : undefined;
    }
    const existing = node.children.some((child) => child.type === 'existing');
    result.push({ kind: node.type, name, node, decorators: decoratorsBefore(node), target, body, existing, loop });
  }
  return result;
}

export function declaration(tpl: Template, kind: DeclarationKind, name: string): Declaration {
  const found = declarations(tpl, kind).find((d) => d.name === name);
  if (!found) throw new Error(`${tpl.path}: no ${kind.replace('_declaration', '')} named ${name}`);
  return found;
}

/** Resources whose type (before `@`) equals `type`, case-insensitively. */
export function resourcesOfType(tpl: Template, type: string): Declaration[] {
  return declarations(tpl, 'resource_declaration').filter((d) => (d.target ?? '').split('@')[0]!.toLowerCase() === type.toLowerCase());
}

/** A plain string literal's value; undefined when the string interpolates. */
export function stringValue(node: Node): string | undefined {
  if (node.type !== 'string') return undefined;
  if (node.namedChildren.some((child) => child.type === 'interpolation')) return undefined;
  const escapes: Record<string, string> = { "\\'": "'", '\\\\': '\\', '\\n': '\n', '\\r': '\r', '\\t': '\t', '\\$': '$' };
  return node.namedChildren
    .filter((child) => child.type === 'string_content' || child.type === 'escape_sequence')
    .map((child) => (child.type === 'escape_sequence' ? (escapes[child.text] ?? child.text) : child.text))
    .join('');
}

/** The key of an object property: an identifier or a plain string. */
function propertyKey(property: Node): string | undefined {
  const key = property.namedChildren[0];
  if (!key) return undefined;
  return key.type === 'string' ? stringValue(key) : key.text;
}

/** The value of `key` in an object node; undefined when absent. */
export function property(object: Node | undefined, key: string): Node | undefined {
  if (!object || object.type !== 'object') return undefined;
  for (const prop of object.namedChildren) {
    if (prop.type !== 'object_property') continue;
    if (propertyKey(prop) === key) return prop.namedChildren[prop.namedChildren.length - 1];
  }
  return undefined;
}

/** Follows a path of keys through nested objects: `path(body, 'properties', 'siteConfig')`. */
export function path(object: Node | undefined, ...keys: string[]): Node | undefined {
  let current = object;
  for (const key of keys) current = property(current, key);
  return current;
}

/** The elements of an array node. */
export function arrayItems(node: Node | undefined): Node[] {
  if (!node || node.type !== 'array') return [];
  return node.namedChildren.filter((child) => child.type !== 'comment');
}

/** All descendants (and the node itself) of a given type. */
export function descendants(node: Node, type: string): Node[] {
  const found: Node[] = [];
  const walk = (current: Node): void => {
    if (current.type === type) found.push(current);
    for (const child of current.namedChildren) walk(child);
  };
  walk(node);
  return found;
}

/** Names of the functions an expression calls (`listKeys`, `union`, ...), including `x.listKeys()` member calls. */
export function calledFunctions(node: Node): string[] {
  return descendants(node, 'call_expression').map((call) => {
    const callee = call.namedChildren[0];
    if (!callee) return '';
    if (callee.type === 'member_expression') return callee.namedChildren[callee.namedChildren.length - 1]?.text ?? '';
    return callee.text;
  });
}

/** Identifiers an expression refers to (its free symbols, approximately: every identifier node). */
export function referencedIdentifiers(node: Node): Set<string> {
  return new Set(descendants(node, 'identifier').map((identifier) => identifier.text));
}
