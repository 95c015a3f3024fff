/**
 * @module The JSON Schema of a workflow definition, for editors (`$schema` in workflow files) and the
 * OpenAPI document. Generated from the zod schemas, so it cannot drift; schemas/workflow-definition.schema.json
 * is its committed copy and GET /api/schemas/workflow-definition.json serves it (with the server's own
 * registry, custom types included).
 *
 * Steps are discriminated by `type`: `$defs/condition` (and `$defs/action`) first checks that `type` is
 * one of the registered names, then one `if`/`then` per type applies that type's schema
 * (`$defs/condition.<type>`). A bad `type` is therefore one error, not one per branch as with `anyOf`,
 * and a good `type` reports only its own fields. Nested conditions (`all`, `any`, `not`) refer back to
 * `$defs/condition`, so they are checked as deeply as the server checks them.
 *
 * What a JSON Schema cannot say stays with the server: JSONata syntax, states that must exist,
 * transition ids unique per state, ISO 8601 durations and time zones, calendars a timer names.
 */
import { z } from 'zod';
import { stepSchema, workflowDefinitionSchema } from '../definition/definition';
import { builtInRegistry, type Registry } from '../steps/registry';

type Json = Record<string, unknown>;

/** Where the schema says it lives; served by the API at /api/schemas/workflow-definition.json. */
export const WORKFLOW_DEFINITION_SCHEMA_ID = 'https://signalbox.dev/schemas/workflow-definition.json';

type StepKind = 'condition' | 'action';

/** One type's schema, with nested generic steps (`stepSchema`) pointing back at `$defs/condition`. */
function stepTypeSchema(schema: z.ZodType, nestedStep: string): Json {
  return z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: (context) => {
      if (context.zodSchema !== stepSchema) return;
      for (const key of Object.keys(context.jsonSchema)) delete (context.jsonSchema as Json)[key];
      (context.jsonSchema as Json).$ref = nestedStep;
    },
  }) as Json;
}

/** The step schemas of one kind: the discriminating schema and one definition per type. */
function stepDefinitions(kind: StepKind, registry: Registry): Json {
  const types = kind === 'condition' ? registry.conditionTypes() : registry.actionTypes();
  const definitions: Json = {};
  for (const type of types) {
    const step = kind === 'condition' ? registry.condition(type)! : registry.action(type)!;
    const { $schema: _dialect, $defs: ownDefs, ...rest } = stepTypeSchema(step.schema, '#/$defs/condition');
    // Each type is generated on its own, so its `$defs` move to the root: named ones (`JsonValue`) as
    // they are, anonymous ones under names unique to the type, and the references to them follow.
    const names = Object.keys((ownDefs as Json | undefined) ?? {}).filter((name) => name.startsWith('__'));
    for (const [name, value] of Object.entries((ownDefs as Json | undefined) ?? {})) if (!names.includes(name)) definitions[name] = value;
    const rename = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value).replace(/"#\/\$defs\/([^"]+)"/g, (match, name: string) => (names.includes(name) ? JSON.stringify(`#/$defs/${kind}.${type}.${name}`) : match)));
    for (const name of names) definitions[`${kind}.${type}.${name}`] = rename((ownDefs as Json)[name]);
    definitions[`${kind}.${type}`] = rename(rest);
  }
  definitions[kind] = {
    type: 'object',
    description: `A ${kind}: \`type\` names a registered ${kind} type, whose own fields follow.`,
    required: ['type'],
    properties: { type: { enum: types } },
    allOf: types.map((type) => ({ if: { properties: { type: { const: type } }, required: ['type'] }, then: { $ref: `#/$defs/${kind}.${type}` } })),
  };
  return definitions;
}

export function workflowDefinitionJsonSchema(registry: Registry = builtInRegistry()): Json {
  const schema = z.toJSONSchema(workflowDefinitionSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  const state = (((schema.properties as Json).states as Json).additionalProperties as Json).properties as Json;
  const refer = (list: unknown, to: StepKind) => ((list as Json).items = { $ref: `#/$defs/${to}` });
  refer(state.entryConditions, 'condition');
  refer(state.exitConditions, 'condition');
  refer(state.entryActions, 'action');
  refer(state.exitActions, 'action');
  const transition = ((state.transitions as Json).items as Json).properties as Json;
  refer(transition.conditions, 'condition');
  refer(transition.actions, 'action');
  // What zod's refinements check, said for editors: exactly one of `after` and `at`, what each holds.
  const timer = transition.timer as Json;
  timer.description = 'Makes this a timer transition: chosen only when its timer fires (never by an ordinary trigger).';
  timer.oneOf = [{ required: ['after'] }, { required: ['at'], not: { required: ['calendar'] } }];
  const timerFields = timer.properties as Json;
  (timerFields.after as Json).description = 'ISO 8601 duration from entering the state (PT48H, P3D); with a calendar, working time in hours, minutes, seconds';
  (timerFields.at as Json).description = 'JSONata expression giving an ISO 8601 instant, evaluated after the entry actions';
  (timerFields.calendar as Json).description = 'A calendar of the workflow\'s "calendars": count only its working time';
  // What zod's refinements of a transition check, said for editors (the server also refuses a trigger name
  // in an automatic transition's conditions, and a second `otherwise` in a state).
  const transitionSchema = (state.transitions as Json).items as Json;
  (transition.automatic as Json).description = 'Taken without a trigger as soon as the state is entered (and its entry actions have run), if its conditions hold';
  (transition.otherwise as Json).description = 'With `automatic`: taken when no other automatic transition of the state holds (at most one per state, no conditions)';
  transitionSchema.allOf = [
    { if: { properties: { otherwise: { const: true } }, required: ['otherwise'] }, then: { properties: { automatic: { const: true }, conditions: { maxItems: 0 } }, required: ['automatic'] } },
    { if: { properties: { automatic: { const: true } }, required: ['automatic'] }, then: { not: { required: ['timer'] } } },
  ];
  const { $schema: dialect, ...rest } = schema;
  return {
    $schema: dialect,
    $id: WORKFLOW_DEFINITION_SCHEMA_ID,
    title: 'Signalbox workflow definition',
    ...rest,
    $defs: {
      ...((schema.$defs as Json | undefined) ?? {}),
      ...stepDefinitions('condition', registry),
      ...stepDefinitions('action', registry),
    },
  };
}
