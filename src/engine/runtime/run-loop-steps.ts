/**
 * @module The run loop's steps wired together, once per runtime (instance-runtime.ts builds them here, and
 * their tests build them the same way): the search rows, what settles a delivery, the index rows, the
 * lease-load-decide-save step, and creation, deletion, the operator's changes and search repair on top of
 * it. Flow admission's parts that the steps call come in as `admission` (they stay with flow control).
 */
import type { ResolvedEngineOptions } from './engine-options';
import type { WorkflowVersionCache } from './workflow-version-cache';
import { SearchIndexing } from '../search/search-indexing';
import type { CapacityPlaces, InstanceRuntimePorts } from './change-types';
import { ChangeFollowUp } from './change-follow-up';
import { ChangeUnderLease, type CapacityLeaving } from './change-under-lease';
import { IndexRows } from './index-rows';
import { InstanceCreation } from './instance-creation';
import { InstanceDeletion } from './instance-deletion';
import { OperatorChanges } from './operator-changes';
import { SearchRepair } from './search-repair';

export interface RunLoopSteps {
  readonly followUp: ChangeFollowUp;
  readonly indexRows: IndexRows;
  readonly loop: ChangeUnderLease;
  readonly creation: InstanceCreation;
  readonly deletion: InstanceDeletion;
  readonly operatorChanges: OperatorChanges;
  readonly searchRepair: SearchRepair;
}

export function runLoopSteps(ports: InstanceRuntimePorts, versions: WorkflowVersionCache, options: ResolvedEngineOptions, admission: CapacityLeaving & CapacityPlaces): RunLoopSteps {
  const search = new SearchIndexing(ports.search, versions, { logger: options.logger, now: () => options.clock.now(), ...(options.searchHmacKey ? { hmacKey: options.searchHmacKey } : {}) });
  const followUp = new ChangeFollowUp(options);
  const indexRows = new IndexRows(ports, options);
  const loop = new ChangeUnderLease(ports, versions, options, search, followUp, indexRows, admission);
  const deletion = new InstanceDeletion(ports, versions, options, search, followUp, indexRows, loop, admission);
  const creation = new InstanceCreation(ports, options, search, followUp, indexRows, loop, deletion, admission);
  const operatorChanges = new OperatorChanges(ports, versions, options, followUp, loop, admission);
  const searchRepair = new SearchRepair(ports, options, search);
  return { followUp, indexRows, loop, creation, deletion, operatorChanges, searchRepair };
}
