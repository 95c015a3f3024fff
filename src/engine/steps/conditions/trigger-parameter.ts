/**
 * @module `triggerParameter`: tests `trigger.parameters[parameter]`. `equals` and `notEquals` also need
 * the parameter to exist, so a missing parameter is neither equal nor unequal to anything.
 */
import { z } from 'zod';
import { jsonValueSchema } from '../../model/json';
import { jsonEqual } from '../../model/json-equal';
import { stepBaseShape } from '../../definition/step-schemas';
import { defineCondition } from '../step-types';

export const triggerParameterCondition = defineCondition({
  type: 'triggerParameter',
  schema: z
    .strictObject({
      type: z.literal('triggerParameter'),
      ...stepBaseShape,
      parameter: z.string().min(1).max(256),
      test: z.enum(['equals', 'notEquals', 'exists', 'notExists']),
      value: jsonValueSchema.optional(),
    })
    .superRefine((config, ctx) => {
      if ((config.test === 'equals' || config.test === 'notEquals') && config.value === undefined) {
        ctx.addIssue({ code: 'custom', path: ['value'], message: `"${config.test}" needs a value` });
      }
    })
    // The same rule for JSON Schema readers (editors, the published schema), which cannot run the refinement.
    .meta({ if: { properties: { test: { enum: ['equals', 'notEquals'] } }, required: ['test'] }, then: { required: ['value'] } }),
  evaluate: (config, { scope }) => {
    const parameters = scope.trigger?.parameters;
    const exists = parameters !== undefined && Object.hasOwn(parameters, config.parameter) && parameters[config.parameter] !== undefined;
    const actual = exists ? parameters[config.parameter] : undefined;
    switch (config.test) {
      case 'exists':
        return exists;
      case 'notExists':
        return !exists;
      case 'equals':
        return exists && jsonEqual(actual, config.value);
      case 'notEquals':
        return exists && !jsonEqual(actual, config.value);
    }
  },
});
