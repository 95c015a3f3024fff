/**
 * @module Where a resumed operation's decision begins and ends, for the poison rule's marks
 * (operation-resumption.ts): the moment the instance's lease is granted to the application, and the moment its
 * work under the lease is over. The engine knows nothing of operations; the local host gives it a lease
 * provider wrapped here (`markingDecisions`), and the runner runs a resumed operation's application inside a
 * scope (`decideWithin`) naming the instance and what to do at those two moments. A lease of any other name, or
 * outside a scope, is the provider's own. Only the first lease of the scope's instance is marked: a 412's second
 * decision runs under the same lease, and an application takes its instance's lease once.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LeaseHandle, LeaseOptions, LeaseProvider } from '../../engine/ports';

export interface DecidingScope {
  /** The instance whose lease is the decision's. */
  readonly instanceId: string;
  /** Under the lease, before the decision: may throw (the operation is poison), and then nothing is decided. */
  readonly begin: () => Promise<void>;
  /** Still under the lease, after the decision: `decided` when its work returned, false when it threw (handed back for a slot, a lost lease, a fault). */
  readonly end: (decided: boolean) => Promise<void>;
}

interface ActiveScope extends DecidingScope {
  entered: boolean;
}

const scopes = new AsyncLocalStorage<ActiveScope>();

/** Runs `work` (one application) with its decision marked as `scope` says. */
export function decideWithin<T>(scope: DecidingScope, work: () => Promise<T>): Promise<T> {
  return scopes.run({ ...scope, entered: false }, work);
}

/** Runs `work` outside any scope: operations an application raises are not its decision. */
export function outsideDecisions<T>(work: () => T): T {
  return scopes.exit(work);
}

/** `leases`, with the first lease of a scope's instance marking the decision made under it. */
export function markingDecisions(leases: LeaseProvider): LeaseProvider {
  return {
    withLease<T>(name: string, work: (lease: LeaseHandle) => Promise<T>, options?: LeaseOptions): Promise<T> {
      const scope = scopes.getStore();
      if (!scope || scope.entered || name !== scope.instanceId) return leases.withLease(name, work, options);
      scope.entered = true;
      return leases.withLease(
        name,
        async (lease) => {
          await scope.begin();
          let result: T;
          try {
            result = await work(lease);
          } catch (error) {
            await scope.end(false);
            throw error;
          }
          await scope.end(true);
          return result;
        },
        options,
      );
    },
    ...(leases.prepare ? { prepare: leases.prepare.bind(leases) } : {}),
    ...(leases.inspect ? { inspect: leases.inspect.bind(leases) } : {}),
  };
}
