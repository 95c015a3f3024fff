/**
 * What main.bicep deploys for one choice of its parameters: modules and resources whose `if (...)`
 * conditions hold, loops unrolled, each module's params evaluated in its caller (bicep-eval.ts). A
 * condition only known at deployment throws: the tests then say so instead of guessing which resources
 * a variant deploys.
 */
import { Declaration, declarations, Node, property, template, Template } from './bicep';
import { evaluate, isOpaque, isRecord, TemplateScope, truth, type Value } from './bicep-eval';

type Locals = ReadonlyMap<string, Value>;

/** The `if (...)` condition of a resource or module value (or of a `for` body); undefined when unconditional. */
function conditionOf(value: Node | undefined): Node | undefined {
  if (!value) return undefined;
  if (value.type === 'if_statement') return value.namedChildren[0];
  if (value.type === 'for_statement') return conditionOf([...value.namedChildren].reverse().find((child) => child.type === 'if_statement' || child.type === 'object'));
  return undefined;
}

/** One resource (one element, for a loop) a deployment creates, or references as `existing`. */
export interface DeployedResource {
  readonly file: string; // relative to infra/bicep
  readonly declaration: Declaration;
  readonly scope: TemplateScope;
  /** The loop variable, for a resource declared with `for`. */
  readonly locals: Locals;
  /** A property of the resource's body, evaluated. */
  value(...keys: string[]): Value;
}

export interface Deployment {
  /** Every module deployed, by symbolic name in main.bicep, with its evaluated params. */
  readonly modules: ReadonlyMap<string, { readonly file: string; readonly scope: TemplateScope; readonly params: Readonly<Record<string, Value>> }>;
  readonly resources: readonly DeployedResource[];
  readonly main: TemplateScope;
  /** Deployed resources of one type (before `@`), `existing` ones left out. */
  ofType(type: string): DeployedResource[];
}

function deployedWhen(condition: Node | undefined, scope: TemplateScope, locals: Locals, what: string): boolean {
  if (!condition) return true;
  const test = truth(evaluate(condition, scope, locals), condition);
  if (isOpaque(test)) throw new Error(`${what}: the condition ${condition.text} is only known at deployment`);
  return test;
}

function valueNode(declaration: Declaration): Node | undefined {
  const children = declaration.node.namedChildren;
  return children[children.length - 1];
}

/** What main.bicep (or another root template) deploys with these parameters (the others take their defaults). */
export function deploy(parameters: Readonly<Record<string, Value>>, root: Template = template('main.bicep')): Deployment {
  const modules = new Map<string, { file: string; scope: TemplateScope; params: Record<string, Value> }>();
  const resources: DeployedResource[] = [];
  const main = new TemplateScope(root, parameters);

  const walk = (file: string, scope: TemplateScope): void => {
    for (const declared of declarations(scope.tpl)) {
      if (declared.kind === 'module_declaration') {
        if (!deployedWhen(conditionOf(valueNode(declared)), scope, new Map(), `${file} module ${declared.name}`)) continue;
        const params = evaluate(property(declared.body, 'params')!, scope);
        if (!isRecord(params)) throw new Error(`${file} module ${declared.name}: params are not an object`);
        const target = declared.target!;
        const moduleScope = new TemplateScope(template(target), params);
        scope.moduleScopes.set(declared.name, moduleScope);
        modules.set(declared.name, { file: target, scope: moduleScope, params });
        walk(target, moduleScope);
      } else if (declared.kind === 'resource_declaration') {
        const condition = conditionOf(valueNode(declared));
        const loopItems: Locals[] = [];
        if (declared.loop) {
          const over = evaluate(declared.loop.over, scope);
          if (!Array.isArray(over)) throw new Error(`${file} resource ${declared.name}: the loop is over ${declared.loop.over.text}, only known at deployment`);
          for (const item of over) loopItems.push(new Map([[declared.loop.item, item]]));
        } else {
          loopItems.push(new Map());
        }
        for (const locals of loopItems) {
          if (!deployedWhen(condition, scope, locals, `${file} resource ${declared.name}`)) continue;
          resources.push({
            file,
            declaration: declared,
            scope,
            locals,
            value: (...keys) => {
              let node: Node | undefined = declared.body;
              for (const key of keys) node = property(node, key);
              return node ? evaluate(node, scope, locals) : null;
            },
          });
        }
      }
    }
  };
  walk(root.path.replace(/^infra\/bicep\//, ''), main);

  return {
    modules,
    resources,
    main,
    ofType: (type) => resources.filter((r) => !r.declaration.existing && (r.declaration.target ?? '').split('@')[0]!.toLowerCase() === type.toLowerCase()),
  };
}
