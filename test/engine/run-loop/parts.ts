/**
 * The run loop's modules wired as InstanceRuntime wires them, on in-memory ports, with flow admission
 * replaced by a recorder (its steps are tested with flow control): each module's tests drive it directly.
 */
import type { Cause, CapacityEntry, Instance, TriggerOutboxRow, WorkflowDefinition, WorkflowDefinitionInput } from '../../../src/engine';
import type { OperationOptions } from '../../../src/engine/ports';
import { runLoopSteps, type CapacityLeaving, type CapacityPlaces } from '../../../src/engine/runtime';
import { InMemoryDueTimerIndex, InMemorySearchIndex } from '../../../src/testing';
import { AdmissionProtocol, CapacityGate } from '../../../src/engine/admission';
import { testEngine } from '../support';

/** A workflow with interests in each state, a timer in `a`, and a raised trigger on entering `b`. */
export const looped: WorkflowDefinitionInput = {
  id: 'looped',
  displayName: 'Looped',
  initialStateId: 'a',
  states: {
    a: {
      interests: ['owner:{{context.owner}}'],
      transitions: [
        { id: 'go', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Go' }] },
        { id: 'later', targetStateId: 'b', timer: { after: 'PT1H' } },
      ],
    },
    b: {
      interests: ['b-watchers'],
      entryActions: [{ type: 'raiseTrigger', trigger: { name: 'EnteredB', subjects: ['audit'] } }],
      transitions: [{ id: 'finish', targetStateId: 'c', conditions: [{ type: 'triggerName', name: 'Finish' }] }],
    },
    c: {},
  },
};

export interface RecordedAdmission extends CapacityLeaving, CapacityPlaces {
  readonly calls: string[];
}

/** Flow admission as the loop sees it, without capacity rows: it must never be asked to re-offer or count out. */
function recordedAdmission(): RecordedAdmission {
  const calls: string[] = [];
  return {
    calls,
    reoffersOf: async (_definition: WorkflowDefinition, _stored: Instance, _cause: Cause, _left: CapacityEntry, _pieces: number, _options: OperationOptions): Promise<TriggerOutboxRow[]> => {
      calls.push('reoffersOf');
      return [];
    },
    countOut: async () => void calls.push('countOut'),
    // No capacity rows: the protocol plans nothing and reserves nothing.
    admissionOf: (options) => new AdmissionProtocol(undefined, new CapacityGate(undefined, options, () => new Date(0)), options),
    giveBackUnusedPlace: async (_gate, _workflowId, _instanceId, decided) => {
      calls.push('giveBackUnusedPlace');
      return decided;
    },
  };
}

export async function runLoopParts(options: { maxInstanceBytes?: number } = {}) {
  const env = testEngine(options);
  const dueTimers = new InMemoryDueTimerIndex();
  // Rows stamped by the engine's clock, as the table's Timestamp is by the store's.
  const search = new InMemorySearchIndex({ now: env.clock.now });
  const ports = { instances: env.instances, outbox: env.instances, interests: env.interests, leases: env.leases, search, dueTimers };
  const engineOptions = env.engine.options;
  const versions = env.engine.workflows.versions;
  const admission = recordedAdmission();
  const steps = runLoopSteps(ports, versions, engineOptions, admission);
  await env.engine.createWorkflow(looped);
  const workflow = await env.engine.getWorkflow('looped');
  return { ...env, dueTimers, search, ports, admission, ...steps, workflow };
}
