/**
 * @module The forecast of a migration's dry run: which instances a full state with `capacity` would refuse,
 * read off the rows as they stand (nothing written).
 */
import type { WorkflowDefinition } from '../definition';
import type { Instance } from '../model/instance';
import type { OperationOptions } from '../ports';
import { entryFromOutside, placeName, type EnteringInstance } from './capacity-admission';
import type { StateCapacityRows } from './state-capacity';

/**
 * A migration's dry run, predicting which instances a full state would refuse (`notMigratable`), as the
 * rows stand now: each key's row is read once, and the instances of the report take its room in the
 * order the report reads them, as the migration would offer them. Waiting triggers go first, as for any
 * entry from outside (admitNow). An estimate: the rows change while the migration runs, and members that
 * left without their change reaching the row yet are only reconciled by a real entry.
 */
export class CapacityForecast {
  private readonly rooms = new Map<string, { room: number; refused: string }>();

  constructor(
    private readonly rows: StateCapacityRows,
    private readonly now: () => Date,
    private readonly options: OperationOptions,
  ) {}

  /** Why `instance` would be refused entry into `stateId` of `definition`, or undefined when it would fit (taking its place). */
  async refusal(definition: WorkflowDefinition, instance: EnteringInstance & Pick<Instance, 'stateId'>, stateId: string): Promise<string | undefined> {
    const entry = await entryFromOutside(definition, instance, stateId, this.now);
    if (!entry) return undefined;
    const { capacity, key } = entry;
    const name = placeName({ stateId, key });
    let place = this.rooms.get(name);
    if (!place) {
      const row = await this.rows.read(definition.id, stateId, key, this.options);
      const waiting = row.queued.length > 0 ? ` and ${row.queued.length} waiting` : '';
      place = {
        room: capacity.limit - row.members.length - row.queued.length,
        refused: `state \`${stateId}\` would be full for key \`${key}\`: ${row.members.length}/${capacity.limit}${waiting} now`,
      };
      this.rooms.set(name, place);
    }
    if (place.room > 0) {
      place.room -= 1;
      return undefined;
    }
    return place.refused;
  }
}
