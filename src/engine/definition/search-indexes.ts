/**
 * @module What a workflow version declares it is searched by (`indexes`), and the fields every
 * workflow is searched by without declaring them (built-in). A declared index is a name, a type and a
 * JSONata expression over the instance; `sensitive` ones are stored as a keyed hash (equality only).
 */
import { z } from 'zod';
import { compileExpression } from '../expressions/expressions';

/** Declared indexes per workflow version: each is a row per instance in the search index. */
export const MAX_INDEXES_PER_WORKFLOW = 16;
/** Values one `keyword` index may hold for one instance (each is a row); past it the field is left unindexed. */
export const MAX_KEYWORD_VALUES = 16;
/** The host setting holding the key sensitive indexes are hashed with, named where its absence matters. */
export const INDEX_KEY_SETTING = 'SIGNALBOX_INDEX_HMAC_KEY';
/** The longest business key. */
export const MAX_BUSINESS_KEY_LENGTH = 256;

export const INDEX_TYPES = ['string', 'number', 'datetime', 'boolean', 'keyword'] as const;
export type IndexType = (typeof INDEX_TYPES)[number];

/** Fields every instance is searched by, with their types. `workflowId` is the partition itself. */
export const BUILT_IN_FIELDS = {
  workflowId: 'string',
  stateId: 'string',
  status: 'string',
  createdAt: 'datetime',
  updatedAt: 'datetime',
  parentId: 'string',
  businessKey: 'string',
} as const satisfies Record<string, IndexType>;
export type BuiltInField = keyof typeof BUILT_IN_FIELDS;

export function isBuiltInField(name: string): name is BuiltInField {
  return Object.hasOwn(BUILT_IN_FIELDS, name);
}

export const indexNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must start with a letter and hold 1-64 characters of A-Z a-z 0-9 _')
  .refine((name) => !isBuiltInField(name), { message: 'is the name of a built-in field' })
  .refine((name) => !['and', 'or', 'not', 'in', 'between', 'startsWith', 'true', 'false'].includes(name), { message: 'is a word of the query language' });

export const searchIndexSchema = z.strictObject({
  name: indexNameSchema.meta({ description: 'The field name queries use (`amount`).' }),
  type: z.enum(INDEX_TYPES).meta({ description: '`keyword` is a list of strings (a query matches any of them).' }),
  expression: z
    .string()
    .min(1)
    .max(1024)
    .superRefine((source, ctx) => {
      try {
        compileExpression(source);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `is not a valid JSONata expression: ${error instanceof Error ? error.message : String(error)}` });
      }
    })
    .meta({ description: 'JSONata over the instance (`context.amount`, `$lowercase(context.region)`).' }),
  sensitive: z.boolean().optional().meta({ description: 'Stored as a keyed hash (HMAC): equality queries only; the value is never stored in clear.' }),
});
export type SearchIndex = z.infer<typeof searchIndexSchema>;

export const indexesSchema = z
  .array(searchIndexSchema)
  .max(MAX_INDEXES_PER_WORKFLOW)
  .superRefine((indexes, ctx) => {
    const seen = new Set<string>();
    indexes.forEach((index, position) => {
      if (seen.has(index.name)) ctx.addIssue({ code: 'custom', path: [position, 'name'], message: `"${index.name}" is declared twice` });
      seen.add(index.name);
    });
  });

export const businessKeySchema = z
  .string()
  .min(1)
  .max(MAX_BUSINESS_KEY_LENGTH)
  // The claims of `flow.unique` keys start with NUL (search-indexing.ts): no business key may.
  .refine((key) => !key.startsWith('\u0000'), { message: 'must not start with the NUL character' })
  .meta({ description: 'A key from the business (an invoice number), searchable as `businessKey`; unique per workflow when the workflow says `uniqueBusinessKey`.' });

/** A field a query may name: built-in, or declared by the version. */
export interface SearchField {
  readonly name: string;
  readonly type: IndexType;
  readonly sensitive: boolean;
  /** Absent for built-in fields. */
  readonly expression?: string;
}

/** The fields of a version: built-ins, then the declared ones. */
export function searchFieldsOf(indexes: readonly SearchIndex[] | undefined): Map<string, SearchField> {
  const fields = new Map<string, SearchField>();
  for (const [name, type] of Object.entries(BUILT_IN_FIELDS)) fields.set(name, { name, type, sensitive: false });
  for (const index of indexes ?? []) fields.set(index.name, { name: index.name, type: index.type, sensitive: index.sensitive ?? false, expression: index.expression });
  return fields;
}
