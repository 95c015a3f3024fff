/** @module The built-in condition types. */
import { allCondition } from './all';
import { anyCondition } from './any';
import { expressionCondition } from './expression';
import { invokeExternalServiceCondition } from './invoke-external-service';
import { notCondition } from './not';
import { triggerContentTypeCondition } from './trigger-content-type';
import { triggerNameCondition } from './trigger-name';
import { triggerParameterCondition } from './trigger-parameter';
import type { ConditionType } from '../step-types';

export { allCondition, anyCondition, expressionCondition, invokeExternalServiceCondition, notCondition, triggerContentTypeCondition, triggerNameCondition, triggerParameterCondition };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of types with their own config types (invariant in it); each was checked by defineCondition.
export const builtInConditions: readonly ConditionType<any>[] = [
  triggerNameCondition,
  triggerContentTypeCondition,
  triggerParameterCondition,
  expressionCondition,
  invokeExternalServiceCondition,
  allCondition,
  anyCondition,
  notCondition,
];
