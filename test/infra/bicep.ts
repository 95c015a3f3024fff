/**
 * A small reader for the Bicep templates in infra/bicep, on top of tree-sitter-bicep: no Bicep compiler
 * installs here, so the syntax tree is what the tests can check. Helpers walk declarations (params, vars,
 * resources, modules, outputs), their decorators and object properties.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Parser from 'tree-sitter';
import Bicep from 'tree-sitter-bicep';

export type Node = Parser.SyntaxNode;

export const repoRoot = join(__dirname, '..', '..');
export const bicepRoot = join(repoRoot, 'infra', 'bicep');

const parser = new Parser();
parser.setLanguage(Bicep as unknown as Parser.Language);

export function parseBicep(source: string): Parser.Tree {
  // The native binding reads the text in chunks of bufferSize; give it room for the whole file.
  return parser.parse(source, null, { bufferSize: Math.max(64 * 1024, source.length * 4) });
}

export interface SyntaxProblem {
  readonly line: number; // 1-based
  readonly column: number; // 1-based
  readonly kind: 'ERROR' | 'MISSING';
  readonly text: string;
}

/** Every ERROR node and every MISSING (inserted by error recovery) node, in document order. */
export function syntaxProblems(tree: Parser.Tree): SyntaxProblem[] {
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

const cache = new Map<string, Template>();

/** A template by its path relative to infra/bicep (e.g. `main.bicep`, `modules/storage.bicep`). */
export function template(pathInBicep: string): Template {
  const path = join('infra', 'bicep', pathInBicep);
  let loaded = cache.get(path);
  if (!loaded) {
    const source = readFileSync(join(repoRoot, path), 'utf8');
    loaded = { path, source, root: parseBicep(source).rootNode };
    cache.set(path, loaded);
  }
  return loaded;
}

export type DeclarationKind =
  | 'parameter_declaration'
  | 'variable_declaration'
  | 'resource_declaration'
  | 'module_declaration'
  | 'output_declaration';

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
    ) continue;
    if (kind && node.type !== kind) continue;
    const [identifier, ...rest] = node.namedChildren;
    const name = identifier?.text ?? '';
    let target: string | undefined;
    let body: Node | undefined;
    if (node.type === 'resource_declaration' || node.type === 'module_declaration') {
      const targetNode = rest.find((child) => child.type === 'string');
      target = targetNode ? stringValue(targetNode) : undefined;
      body = declaredObject(rest[rest.length - 1]);
    } else if (node.type === 'output_declaration' || node.type === 'variable_declaration' || node.type === 'parameter_declaration') {
      const last = rest[rest.length - 1];
      body = last && last.type !== 'type' ? last : undefined;
    }
    result.push({ kind: node.type, name, node, decorators: decoratorsBefore(node), target, body });
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
  return declarations(tpl, 'resource_declaration').filter(
    (d) => (d.target ?? '').split('@')[0]!.toLowerCase() === type.toLowerCase(),
  );
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
