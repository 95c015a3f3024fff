/**
 * @module The JSON Schema of a workflow definition, for editors (`$schema` in workflow files). Generated
 * from the zod schema, so it cannot drift; schemas/workflow-definition.schema.json is its committed copy.
 * Condition and action lists point at `$defs/condition` and `$defs/action`, one `anyOf` branch per
 * registered type, so editors complete their fields; nested conditions (`all`, `any`, `not`) stay generic
 * steps, as the registry's recursion goes through zod's open step shape.
 */
import { z } from 'zod';
import { workflowDefinitionSchema } from './definition';
import { builtInRegistry, type Registry } from './registry';

type Json = Record<string, unknown>;

export function workflowDefinitionJsonSchema(registry: Registry = builtInRegistry()): Record<string, unknown> {
  const schema = z.toJSONSchema(workflowDefinitionSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  const conditions = registry.conditionTypes().map((type) => z.toJSONSchema(registry.condition(type)!.schema, { io: 'input', unrepresentable: 'any' }));
  const actions = registry.actionTypes().map((type) => z.toJSONSchema(registry.action(type)!.schema, { io: 'input', unrepresentable: 'any' }));
  // Each type's schema is generated on its own, so its `$defs` (e.g. recursive JSON values) and the
  // `#/$defs/...` references to them are hoisted to the root under names unique to the type.
  const hoisted: Json = {};
  const hoist = (kind: string, item: Record<string, unknown>) => {
    const { $schema: _dialect, $defs: ownDefs, ...rest } = item;
    const names = Object.keys((ownDefs as Json | undefined) ?? {});
    const rename = (name: string) => `${kind}.${String(rest.properties && ((rest.properties as Json).type as Json | undefined)?.const)}.${name}`;
    const rewrite = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value).replace(/"#\/\$defs\/([^"]+)"/g, (match, name: string) => (names.includes(name) ? JSON.stringify(`#/$defs/${rename(name)}`) : match)));
    for (const name of names) hoisted[rename(name)] = rewrite((ownDefs as Json)[name]);
    return rewrite(rest) as Json;
  };
  const state = (((schema.properties as Json).states as Json).additionalProperties as Json).properties as Json;
  const refer = (list: unknown, to: 'condition' | 'action') => ((list as Json).items = { $ref: `#/$defs/${to}` });
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
  return {
    ...schema,
    title: 'Signalbox workflow definition',
    $defs: {
      ...((schema.$defs as Record<string, unknown> | undefined) ?? {}),
      condition: { anyOf: conditions.map((item) => hoist('condition', item)) },
      action: { anyOf: actions.map((item) => hoist('action', item)) },
      ...hoisted,
    },
  };
}
