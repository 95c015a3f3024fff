/**
 * Evaluates Bicep expressions of the templates, as far as the syntax tree allows: parameters (given or
 * defaulted), variables, ternaries, comparisons, module outputs and the few functions the templates
 * compute with. What only Azure knows at deployment (resource properties, uniqueString, ...) stays an
 * `Opaque` value carrying its expression text. bicep-deployment.ts walks a whole deployment with it.
 */
import { Declaration, declarations, Node, property, stringValue, Template } from './bicep';

/** A value only known at deployment; `text` is its expression, with the known parts of a string filled in. */
export class Opaque {
  constructor(
    readonly text: string,
    /** A string known to be non-empty (it interpolates non-empty literal text), so `empty()` of it is false. */
    readonly nonEmpty = false,
  ) {}
}

/** A reference to a resource or module declared in the template being evaluated. */
export class SymbolRef extends Opaque {
  constructor(
    readonly declaration: Declaration,
    readonly scope: TemplateScope,
  ) {
    super(declaration.name);
  }
}

export type Value = string | number | boolean | null | Opaque | readonly Value[] | { readonly [key: string]: Value };

const isRecord = (value: Value): value is { readonly [key: string]: Value } => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Opaque);
const isOpaque = (value: Value): value is Opaque => value instanceof Opaque;

/** The names in scope while a template is evaluated: its parameters (as bound), variables and symbols. */
export class TemplateScope {
  private readonly variables = new Map<string, Value>();
  /** The scopes of the modules this template deploys, by symbolic name (filled in as they are deployed). */
  readonly moduleScopes = new Map<string, TemplateScope>();
  constructor(
    readonly tpl: Template,
    private readonly bindings: Readonly<Record<string, Value>>,
  ) {}

  lookup(name: string): Value {
    const declared = declarations(this.tpl).find((d) => d.name === name && d.kind !== 'output_declaration');
    if (!declared) return new Opaque(name);
    switch (declared.kind) {
      case 'parameter_declaration':
        if (name in this.bindings) return this.bindings[name]!;
        return declared.body ? evaluate(declared.body, this) : new Opaque(name);
      case 'variable_declaration':
        if (!this.variables.has(name)) this.variables.set(name, evaluate(declared.body!, this));
        return this.variables.get(name)!;
      default:
        return new SymbolRef(declared, this);
    }
  }
}

type Locals = ReadonlyMap<string, Value>;

const ESCAPES: Readonly<Record<string, string>> = { "\\'": "'", '\\\\': '\\', '\\n': '\n', '\\r': '\r', '\\t': '\t', '\\$': '$' };

function deepEqual(a: Value, b: Value): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function truth(value: Value, node: Node): boolean | Opaque {
  if (typeof value === 'boolean') return value;
  if (isOpaque(value)) return value;
  throw new Error(`not a boolean: ${node.text}`);
}

const FUNCTIONS: Readonly<Record<string, (args: Value[]) => Value>> = {
  empty: ([v]) => (typeof v === 'string' || Array.isArray(v) ? v.length === 0 : isRecord(v!) ? Object.keys(v).length === 0 : v === null),
  concat: (args) => (args.every(Array.isArray) ? (args as Value[][]).flat() : args.map(String).join('')),
  union: (args) => (args.every(Array.isArray) ? [...new Set((args as Value[][]).flat())] : Object.assign({}, ...(args as object[]))),
  contains: ([container, item]) => {
    if (typeof container === 'string') return container.includes(String(item));
    if (Array.isArray(container)) return container.some((v) => deepEqual(v, item!));
    return String(item) in (container as object);
  },
  split: ([text, separator]) => String(text).split(String(separator)),
  trim: ([text]) => String(text).trim(),
  toLower: ([text]) => String(text).toLowerCase(),
  length: ([v]) => (typeof v === 'string' || Array.isArray(v) ? v.length : Object.keys(v as object).length),
  subscriptionResourceId: (args) => {
    const [type, ...names] = args.map(String);
    return `/subscriptions/{subscriptionId}/providers/${type}/${names.join('/')}`;
  },
};

/** Functions that take lambdas: the lambda is applied to each element. */
function callWithLambda(name: string, args: readonly Node[], scope: TemplateScope, locals: Locals): Value | undefined {
  if (name !== 'filter' && name !== 'map') return undefined;
  const [arrayNode, lambda] = args;
  if (!arrayNode || lambda?.type !== 'lambda_expression') return undefined;
  const items = evaluate(arrayNode, scope, locals);
  if (isOpaque(items)) return new Opaque(`${name}(${items.text}, ${lambda.text})`);
  if (!Array.isArray(items)) throw new Error(`${name} over a non-array: ${arrayNode.text}`);
  const [parameter, body] = lambda.namedChildren;
  const apply = (item: Value): Value => evaluate(body!, scope, new Map([...locals, [parameter!.text, item]]));
  if (name === 'map') return items.map(apply);
  const kept: Value[] = [];
  for (const item of items) {
    const keep = apply(item);
    if (isOpaque(keep)) return new Opaque(`filter(${arrayNode.text}, ${lambda.text})`);
    if (keep === true) kept.push(item);
  }
  return kept;
}

/**
 * `module.outputs.x` (the module's output, evaluated in the module's scope) and `resource.name` (the name the
 * resource is declared with). A result only known at deployment keeps the expression as written here, so
 * it still says which module it came from.
 */
function symbolMember(objectNode: Node, name: string, scope: TemplateScope, locals: Locals): Value | undefined {
  const expression = `${objectNode.text}.${name}`;
  if (objectNode.type === 'identifier' && name === 'name' && !locals.has(objectNode.text)) {
    const target = scope.lookup(objectNode.text);
    if (target instanceof SymbolRef && target.declaration.kind === 'resource_declaration') {
      const value = evaluate(property(target.declaration.body, 'name')!, target.scope);
      return isOpaque(value) ? new Opaque(expression, value.nonEmpty) : value;
    }
  }
  if (objectNode.type === 'member_expression') {
    const [moduleNode, outputsNode] = objectNode.namedChildren;
    if (moduleNode?.type !== 'identifier' || outputsNode?.text !== 'outputs') return undefined;
    const moduleScope = scope.moduleScopes.get(moduleNode.text);
    if (!moduleScope) return undefined;
    const output = declarations(moduleScope.tpl, 'output_declaration').find((d) => d.name === name);
    if (!output?.body) return undefined;
    const value = evaluate(output.body, moduleScope);
    return isOpaque(value) ? new Opaque(expression, value.nonEmpty) : value;
  }
  return undefined;
}

/** The value of an expression node in a template scope (and the lambda or loop variables in `locals`). */
export function evaluate(node: Node, scope: TemplateScope, locals: Locals = new Map()): Value {
  const recurse = (child: Node): Value => evaluate(child, scope, locals);
  switch (node.type) {
    case 'string': {
      const literal = stringValue(node);
      if (literal !== undefined) return literal;
      const parts = node.namedChildren.map((part) => {
        if (part.type !== 'interpolation') return { text: part.type === 'escape_sequence' ? (ESCAPES[part.text] ?? part.text) : part.text, opaque: false };
        const value = recurse(part.namedChildren[0]!);
        return isOpaque(value) ? { text: `\${${value.text}}`, opaque: true, nonEmpty: value.nonEmpty } : { text: String(value), opaque: false, nonEmpty: String(value) !== '' };
      });
      const text = parts.map((part) => part.text).join('');
      const nonEmpty = parts.some((part) => (part.opaque ? part.nonEmpty : part.text !== ''));
      return parts.some((part) => part.opaque) ? new Opaque(text, nonEmpty) : text;
    }
    case 'number':
      return Number(node.text);
    case 'boolean':
      return node.text === 'true';
    case 'null':
      return null;
    case 'array':
      return node.namedChildren.filter((child) => child.type !== 'comment').map(recurse);
    case 'object': {
      const result: Record<string, Value> = {};
      for (const prop of node.namedChildren) {
        if (prop.type !== 'object_property') continue;
        const keyNode = prop.namedChildren[0]!;
        const key = keyNode.type === 'string' ? evaluate(keyNode, scope, locals) : keyNode.text;
        result[isOpaque(key) ? key.text : String(key)] = recurse(prop.namedChildren[prop.namedChildren.length - 1]!);
      }
      return result;
    }
    case 'identifier':
      return locals.has(node.text) ? locals.get(node.text)! : scope.lookup(node.text);
    case 'parenthesized_expression':
      return recurse(node.namedChildren[0]!);
    case 'unary_expression': {
      const operand = recurse(node.namedChildren[0]!);
      const operator = node.children[0]!.text;
      if (isOpaque(operand)) return new Opaque(node.text);
      if (operator === '!') return !truth(operand, node);
      if (operator === '-') return -Number(operand);
      return new Opaque(node.text);
    }
    case 'binary_expression': {
      const [leftNode, rightNode] = node.namedChildren;
      const operator = node.children[1]!.text;
      const left = recurse(leftNode!);
      if (operator === '&&' && left === false) return false;
      if (operator === '||' && left === true) return true;
      if (operator === '??') return left === null ? recurse(rightNode!) : left;
      const right = recurse(rightNode!);
      if (isOpaque(left) || isOpaque(right)) return new Opaque(node.text);
      switch (operator) {
        case '==':
          return deepEqual(left, right);
        case '!=':
          return !deepEqual(left, right);
        case '=~':
          return String(left).toLowerCase() === String(right).toLowerCase();
        case '&&':
        case '||':
          return truth(right, node) as boolean;
        case '>':
          return Number(left) > Number(right);
        case '>=':
          return Number(left) >= Number(right);
        case '<':
          return Number(left) < Number(right);
        case '<=':
          return Number(left) <= Number(right);
        default:
          return new Opaque(node.text);
      }
    }
    case 'ternary_expression': {
      const [condition, whenTrue, whenFalse] = node.namedChildren;
      const test = truth(recurse(condition!), condition!);
      if (isOpaque(test)) return new Opaque(node.text);
      return recurse(test ? whenTrue! : whenFalse!);
    }
    case 'member_expression': {
      const [objectNode, propertyNode] = node.namedChildren;
      const resolved = symbolMember(objectNode!, propertyNode!.text, scope, locals);
      if (resolved !== undefined) return resolved;
      const target = recurse(objectNode!);
      if (isRecord(target)) return target[propertyNode!.text] ?? null;
      return new Opaque(node.text);
    }
    case 'call_expression': {
      const callee = node.namedChildren[0]!;
      const args = node.namedChildren.find((child) => child.type === 'arguments')?.namedChildren ?? [];
      const withLambda = callWithLambda(callee.text, args, scope, locals);
      if (withLambda !== undefined) return withLambda;
      const fn = FUNCTIONS[callee.text];
      if (!fn) return new Opaque(node.text);
      const values = args.map(recurse);
      if (callee.text === 'empty' && isOpaque(values[0]!) && values[0].nonEmpty) return false;
      return values.some(isOpaque) ? new Opaque(node.text) : fn(values);
    }
    default:
      return new Opaque(node.text);
  }
}

export { isOpaque, isRecord, truth };
