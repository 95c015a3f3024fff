/**
 * @module Human tasks over HTTP (issue 39): the caller's inbox (`GET /api/tasks`, read from the inbox index
 * only: the caller's own partitions), one task, and claim, release, delegate and complete, each one change
 * of the task's instance under its lease. Errors as everywhere: a closed or claimed task 409 naming why,
 * a stranger or the four-eyes rule 403, a form that does not match 400 naming the field.
 */
import { z } from 'zod';
import { MAX_INBOX_PAGE_SIZE, type TaskView } from '../../../engine';
import { MAX_TASK_COMMENT_LENGTH } from '../../../engine/tasks';
import { jsonObjectSchema } from '../../../engine/model';
import { Role } from '../access';
import { defineRoute } from '../route';
import { actorOf, type RouteDefinition } from '../types';

const taskPath = z.object({ taskId: z.string().min(1).max(1100) });
const noQuery = z.object({});
const flag = z.enum(['true', 'false']).transform((value) => value === 'true');

const inboxQuery = z.object({
  workflowId: z.string().min(1).max(128).optional(),
  stateId: z.string().min(1).max(128).optional(),
  dueBefore: z.iso.datetime({ offset: true }).optional().meta({ description: 'Only tasks due before this instant (ISO 8601).' }),
  overdue: flag.optional().meta({ description: '`true`: only tasks whose due date has passed.' }),
  escalated: flag.optional().meta({ description: '`true`: only escalated tasks; `false`: only the others.' }),
  candidates: flag.optional().meta({ description: '`true`: also tasks the caller may claim as a candidate.' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_INBOX_PAGE_SIZE)
    .optional()
    .meta({ description: `Page size (default 50, at most ${MAX_INBOX_PAGE_SIZE}).` }),
  continuationToken: z.string().min(1).max(4096).optional(),
});

const principalsSchema = z.object({ users: z.array(z.string()), groups: z.array(z.string()), roles: z.array(z.string()) });
const personSchema = z.object({ id: z.string(), name: z.string() });
export const taskSchema = z
  .looseObject({
    id: z.string(),
    instanceId: z.string(),
    workflowId: z.string(),
    workflowVersion: z.number(),
    stateId: z.string(),
    title: z.string(),
    description: z.string().optional(),
    status: z.enum(['open', 'claimed', 'decided']),
    createdAt: z.string(),
    dueAt: z.string().optional(),
    overdue: z.boolean(),
    escalated: z.boolean().optional(),
    assignees: principalsSchema,
    candidates: principalsSchema.optional(),
    claimedBy: personSchema.extend({ at: z.string() }).optional(),
    decisions: z.array(z.looseObject({ by: personSchema, at: z.string(), outcome: z.string(), comment: z.string().optional() })),
    resolution: z.looseObject({ outcome: z.string(), at: z.string(), by: personSchema, triggerId: z.string(), reason: z.string() }).optional(),
    outcomes: z.array(z.looseObject({ name: z.string(), displayName: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() })),
  })
  .meta({ id: 'Task' });

const inboxRowSchema = z.object({
  taskId: z.string(),
  instanceId: z.string(),
  workflowId: z.string(),
  stateId: z.string(),
  title: z.string(),
  createdAt: z.string(),
  dueAt: z.string().optional(),
  overdue: z.boolean(),
  escalated: z.boolean(),
  claimedBy: z.string().optional(),
  candidate: z.boolean(),
  decided: z.boolean(),
});
const inboxSchema = z.object({ items: z.array(inboxRowSchema), continuationToken: z.string().optional() });

const delegateBodySchema = z.strictObject({ userId: z.string().min(1).max(256), name: z.string().min(1).max(256).optional() });
const completeBodySchema = z.strictObject({
  outcome: z.string().min(1).max(128),
  parameters: jsonObjectSchema.optional(),
  comment: z.string().max(MAX_TASK_COMMENT_LENGTH).optional(),
});

const taskAnswer = (description: string) => ({ description, body: taskSchema });
const token = { encode: (sortKey: string) => Buffer.from(sortKey, 'utf8').toString('base64url'), decode: (text: string) => Buffer.from(text, 'base64url').toString('utf8') };

function taskBody(task: TaskView): TaskView {
  return task;
}

const conflicts = { 404: 'No such task, or it is closed.', 409: 'The task is closed (the instance left its state), decided, or claimed by someone else: the detail says which.' };

export const taskRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'listTasks',
    methods: ['GET'],
    route: 'tasks',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: "The caller's inbox of human tasks",
      description:
        "Open tasks assigned to the caller, one of the caller's groups or app roles (and, with `candidates=true`, those they may claim), sorted by due date (tasks without one last), paged. Read from the inbox index: only the caller's own rows.",
      tags: ['tasks'],
      query: inboxQuery,
      responses: { 200: { description: 'A page of the inbox.', body: inboxSchema } },
    },
    async handle({ query, request }, { engine }) {
      const now = engine.options.clock.now().toISOString();
      const page = await engine.tasks.inbox(
        actorOf(request),
        {
          ...(query.workflowId !== undefined ? { workflowId: query.workflowId } : {}),
          ...(query.stateId !== undefined ? { stateId: query.stateId } : {}),
          ...(query.dueBefore !== undefined ? { dueBefore: new Date(query.dueBefore).toISOString() } : {}),
          ...(query.overdue ? { overdue: true } : {}),
          ...(query.escalated !== undefined ? { escalated: query.escalated } : {}),
          ...(query.candidates ? { includeCandidates: true } : {}),
        },
        { ...(query.limit !== undefined ? { limit: query.limit } : {}), ...(query.continuationToken !== undefined ? { continuationToken: token.decode(query.continuationToken) } : {}) },
      );
      const items = page.items.map(({ key: _key, sortKey: _sortKey, ...row }) => ({ ...row, overdue: row.dueAt !== undefined && !row.decided && row.dueAt < now }));
      return { status: 200, body: { items, ...(page.continuationToken !== undefined ? { continuationToken: token.encode(page.continuationToken) } : {}) } };
    },
  }),
  defineRoute({
    name: 'getTask',
    methods: ['GET'],
    route: 'tasks/{taskId}',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'One open human task',
      description: 'Read from its instance (the truth the commands check): assignees, claim, decisions, escalation, and the outcomes with the JSON Schemas of their forms.',
      tags: ['tasks'],
      path: taskPath,
      query: noQuery,
      responses: { 200: taskAnswer('The task.'), 404: 'No such task, or it is closed.' },
    },
    async handle({ params }, { engine }) {
      return { status: 200, body: taskBody(await engine.tasks.get(params.taskId)) };
    },
  }),
  defineRoute({
    name: 'claimTask',
    methods: ['POST'],
    route: 'tasks/{taskId}/claim',
    authLevel: 'function',
    role: Role.sender,
    contract: {
      summary: 'Claim a task',
      description: 'Only an assignee or candidate may; of two claims at once exactly one wins, the other answers 409 naming the claimant. Claiming it again is a no-op.',
      tags: ['tasks'],
      path: taskPath,
      query: noQuery,
      responses: { 200: taskAnswer('The task, claimed by the caller.'), 403: 'The caller is no assignee or candidate.', ...conflicts },
    },
    async handle({ params, request }, { engine }) {
      return { status: 200, body: taskBody(await engine.tasks.claim(params.taskId, actorOf(request))) };
    },
  }),
  defineRoute({
    name: 'releaseTask',
    methods: ['POST'],
    route: 'tasks/{taskId}/release',
    authLevel: 'function',
    role: Role.sender,
    contract: {
      summary: 'Release a claimed task',
      tags: ['tasks'],
      path: taskPath,
      query: noQuery,
      responses: { 200: taskAnswer('The task, unclaimed.'), 403: 'Claimed by someone else.', ...conflicts },
    },
    async handle({ params, request }, { engine }) {
      return { status: 200, body: taskBody(await engine.tasks.release(params.taskId, actorOf(request))) };
    },
  }),
  defineRoute({
    name: 'delegateTask',
    methods: ['POST'],
    route: 'tasks/{taskId}/delegate',
    authLevel: 'function',
    role: Role.sender,
    contract: {
      summary: 'Delegate a task to a user',
      description: 'The claimant (or, while unclaimed, an assignee or candidate) hands the task to `userId`: it is claimed for them and in their inbox.',
      tags: ['tasks'],
      path: taskPath,
      query: noQuery,
      body: delegateBodySchema,
      responses: { 200: taskAnswer('The task, claimed for the delegate.'), 403: 'The caller is no assignee or candidate.', ...conflicts },
    },
    invalidBody: 'The delegation is invalid',
    async handle({ params, body, request }, { engine }) {
      return { status: 200, body: taskBody(await engine.tasks.delegate(params.taskId, actorOf(request), { id: body.userId, name: body.name ?? body.userId })) };
    },
  }),
  defineRoute({
    name: 'completeTask',
    methods: ['POST'],
    route: 'tasks/{taskId}/complete',
    authLevel: 'function',
    role: Role.sender,
    contract: {
      summary: 'Decide a task',
      description:
        "Records the caller's decision (who, when, outcome, comment: also in the instance's history). Once one outcome reaches the task's quorum, its trigger is sent to the instance as the caller through the normal path (traces, events, history). `parameters` are checked against the outcome's JSON Schema.",
      tags: ['tasks'],
      path: taskPath,
      query: noQuery,
      body: completeBodySchema,
      responses: {
        200: taskAnswer('The task with the decision (`status: decided` once the quorum is reached).'),
        400: 'An unknown outcome, or parameters its form refuses (naming the field).',
        403: 'No assignee or candidate, or named by the four-eyes rule.',
        ...conflicts,
      },
    },
    invalidBody: 'The completion is invalid',
    async handle({ params, body, request }, { engine }) {
      return { status: 200, body: taskBody(await engine.tasks.complete(params.taskId, actorOf(request), body)) };
    },
  }),
];
