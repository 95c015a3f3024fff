/** @module The built-in action types. */
import { invokeExternalServiceAction } from './invoke-external-service';
import { logAction } from './log';
import { raiseTriggerAction } from './raise-trigger';
import { setContextAction } from './set-context';
import { startInstanceAction } from './start-instance';
import type { ActionType } from '../step-types';

export { invokeExternalServiceAction, logAction, raiseTriggerAction, setContextAction, startInstanceAction };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of types with their own config types (invariant in it); each was checked by defineAction.
export const builtInActions: readonly ActionType<any>[] = [setContextAction, invokeExternalServiceAction, raiseTriggerAction, logAction, startInstanceAction];
