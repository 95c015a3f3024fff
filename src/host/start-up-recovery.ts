/**
 * @module Recovery of work a crash left behind, written once for both hosts: outbox rows saved but not
 * relayed (a crash between a save and its relay; each row becomes an operation, idempotently), then
 * lifecycle events recorded but never handed to delivery, then the blobs of large instance records no
 * instance references (a save that failed after writing its blob). Each is one scan across the instances'
 * partitions, so it runs once per app, not per worker: at start-up on the local server
 * (local-host.ts), from one timer-triggered function on Azure (functions/recovery.ts), whose schedule
 * runs on one worker at a time however many there are. A failure is logged, never thrown: what it
 * could not recover waits for the next sweep (or, for outbox rows, the next load of their instance).
 */
import type { Engine } from '../engine/engine';
import type { Logger } from './operation-activity-service';

export interface RecoveryCounts {
  /** Outbox rows delivered. */
  readonly outboxRows: number;
  /** Event deliveries handed to delivery again. */
  readonly eventDeliveries: number;
  /** Blobs of large instance records that no instance referenced, deleted. */
  readonly orphanedBlobs: number;
}

export async function recoverLeftovers(engine: Engine, logger: Logger): Promise<RecoveryCounts> {
  let outboxRows = 0;
  let eventDeliveries = 0;
  try {
    outboxRows = await engine.relayLeftovers();
    if (outboxRows > 0) logger.info('delivered leftover outbox rows', { count: outboxRows });
  } catch (error) {
    logger.warn('the outbox sweep failed; rows wait for their instance to be loaded or the next sweep', { error: String(error) });
  }
  // After the rows: a relayed row may itself record events, which its own relay hands over.
  try {
    eventDeliveries = await engine.resumeEventDeliveries();
    if (eventDeliveries > 0) logger.info('resumed lifecycle event deliveries', { count: eventDeliveries });
  } catch (error) {
    logger.warn('could not resume lifecycle event deliveries; they wait for the next sweep', { error: String(error) });
  }
  let orphanedBlobs = 0;
  try {
    orphanedBlobs = await engine.collectOrphans();
    if (orphanedBlobs > 0) logger.info('deleted orphaned instance blobs', { count: orphanedBlobs });
  } catch (error) {
    logger.warn('could not collect orphaned instance blobs; they wait for the next sweep', { error: String(error) });
  }
  return { outboxRows, eventDeliveries, orphanedBlobs };
}
