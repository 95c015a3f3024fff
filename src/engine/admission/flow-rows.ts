/**
 * @module The kinds of row the flow store holds (ports/flow-store.ts), each a row-key prefix and the zod
 * schema its stored value is read with:
 * - `slots|<key>`: a concurrency key's holders, waiters and run-time limit override (concurrency-slots.ts);
 * - `capacity|<stateId>|<key>`: a state and key's members and whole waiting triggers (state-capacity.ts);
 * - `audit|<length>:<key>|<newest first>`: one run-time limit change of a key (flow-keys.ts).
 * Objects are read loosely: a field this version does not know (written by a newer one on the same storage
 * account) is kept, and written back with the row, rather than dropped by the first older writer.
 */
import { z } from 'zod';
import type { Trigger } from '../model/trigger';
import type { FlowRowKind } from '../ports';
import type { KeySlots, LimitOverride, SlotHolder, SlotWaiter } from './concurrency-slots';
import type { FlowAuditEntry } from './flow-keys';
import type { CapacityMember, CapacityWaiter, StateKeyCapacity } from './state-capacity';

/** Times are compared as strings (expiries, arrival order): only the ISO form `toISOString` writes sorts right. */
const timeSchema = z.iso.datetime();
const idSchema = z.string().min(1);
const prioritySchema = z.number().int();

const slotHolderSchema: z.ZodType<SlotHolder> = z.looseObject({ id: idSchema, instanceId: idSchema, triggerId: idSchema, since: timeSchema, expiresAt: timeSchema });

const slotWaiterSchema: z.ZodType<SlotWaiter> = z.looseObject({
  id: idSchema,
  instanceId: idSchema,
  triggerId: idSchema,
  priority: prioritySchema,
  arrivedAt: timeSchema,
  expiresAt: timeSchema,
});

const limitOverrideSchema: z.ZodType<LimitOverride> = z.looseObject({ limit: z.number().int().min(0), by: z.string(), at: timeSchema });

/** A row written before a list existed on it reads as that list empty. */
const keySlotsSchema: z.ZodType<KeySlots> = z.looseObject({
  running: z.array(slotHolderSchema).default([]),
  queued: z.array(slotWaiterSchema).default([]),
  limitOverride: limitOverrideSchema.optional(),
});

export const slotRows: FlowRowKind<KeySlots> = { name: 'concurrency slots', prefix: 'slots|', schema: keySlotsSchema };

/**
 * A waiting trigger was validated when it was accepted and is applied, whole, when it is offered again: the
 * row checks what the queue reads of it (its id, name and subjects), not its parameters again (up to 64 KiB
 * each, 500 per row, on every read of the row).
 */
function isStoredTrigger(value: unknown): value is Trigger {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { id, name, subjects } = value as Record<string, unknown>;
  return typeof id === 'string' && id.length > 0 && typeof name === 'string' && Array.isArray(subjects) && subjects.every((subject) => typeof subject === 'string');
}

const storedTriggerSchema = z.custom<Trigger>(isStoredTrigger, { message: 'not a trigger (an id, a name and subjects)' });

/** A member counted in before members kept their history length reads as counted in by its creation (0). */
const capacityMemberSchema: z.ZodType<CapacityMember> = z.looseObject({ instanceId: idSchema, since: timeSchema, historyLength: z.number().int().min(0).default(0) });

const capacityWaiterSchema: z.ZodType<CapacityWaiter> = z.looseObject({
  id: idSchema,
  instanceId: idSchema,
  incarnation: z.string().optional(),
  trigger: storedTriggerSchema,
  priority: prioritySchema,
  arrivedAt: timeSchema,
  deadline: timeSchema,
});

const stateKeyCapacitySchema: z.ZodType<StateKeyCapacity> = z.looseObject({
  members: z.array(capacityMemberSchema).default([]),
  queued: z.array(capacityWaiterSchema).default([]),
});

export const capacityRows: FlowRowKind<StateKeyCapacity> = { name: 'state capacity', prefix: 'capacity|', schema: stateKeyCapacitySchema };

const flowAuditEntrySchema: z.ZodType<FlowAuditEntry> = z.looseObject({
  key: z.string(),
  by: z.string(),
  at: timeSchema,
  old: z.number().int().nullable(),
  new: z.number().int().nullable(),
  tenantId: z.string().optional(),
});

export const auditRows: FlowRowKind<FlowAuditEntry> = { name: 'a flow audit entry', prefix: 'audit|', schema: flowAuditEntrySchema };

/** Every kind, for the stores' tests: no prefix starts another. */
export const FLOW_ROW_KINDS = [slotRows, capacityRows, auditRows] as const;
