/**
 * @module "Why is it stuck?": why one instance is not moving (the workflow's counts of it:
 * workflows/workflow-waiting.ts, which shares these schemas). The engine classifies (analysis/why-waiting.ts, waiting-service.ts);
 * these routes only ask it, and their schemas describe its answers.
 */
import { z } from 'zod';
import { waitingClassSchema } from '../../../engine/analysis';
import { instanceStatusSchema } from '../../../engine/model';
import { stepErrorShape } from '../api-schemas';
import { Role } from '../access';
import { defineRoute } from '../route';
import type { RouteDefinition } from '../types';

const timestamp = z.string().meta({ description: 'ISO 8601, UTC.', format: 'date-time' });
const command = z.object({ method: z.literal('POST'), path: z.string() });

export const waitingReasonSchema = z
  .discriminatedUnion('class', [
    z.object({ class: z.literal('final'), status: instanceStatusSchema, at: timestamp }).meta({ description: 'Ended (complete or cancelled): nothing is wrong.' }),
    z
      .object({
        class: z.literal('faulted'),
        cause: z.string().meta({ description: 'What failed (secrets never appear in it).' }),
        triggerId: z.string().nullable().meta({ description: 'The trigger whose application faulted; null for a creation or recovery.' }),
        at: timestamp,
        recover: z
          .object({
            cli: z.string().meta({ description: 'The CLI line that recovers it into the state it faulted in.' }),
            http: command.extend({ body: z.object({ stateId: z.string() }) }),
          })
          .meta({ description: 'Recovering into its state runs the entry again; another state may be named.' }),
        retry: z
          .object({
            cli: z.string().meta({ description: 'The CLI line that retries it.' }),
            http: command,
          })
          .optional()
          .meta({ description: 'Only when the fault came from a trigger it recorded: retrying applies that trigger again, exactly once (once its cause, a service down say, is fixed).' }),
      })
      .meta({ description: 'A step failed and nothing handled it.' }),
    z
      .object({
        class: z.literal('suspended'),
        since: timestamp,
        by: z.string().optional().meta({ description: 'Who suspended it, where the host recorded it.' }),
        resume: z.object({ cli: z.string(), http: command }),
      })
      .meta({ description: 'Suspended by a client.' }),
    z
      .object({
        class: z.literal('queuedForSlot'),
        queued: z.array(
          z.object({
            key: z.string(),
            triggerId: z.string(),
            priority: z.number().int(),
            arrivedAt: timestamp,
            position: z.number().int().meta({ description: "Its place in the key's queue, 1 for the next admitted (higher priority first, then arrival)." }),
            queuedOnKey: z.number().int().meta({ description: 'Triggers waiting on the key.' }),
            running: z.number().int().meta({ description: 'Applications holding a slot of the key.' }),
            limit: z.number().int().meta({ description: "The limit in force: the run-time override's, else the definition's." }),
          }),
        ),
        view: z.object({ cli: z.string(), http: z.object({ method: z.literal('GET'), path: z.string() }) }).meta({ description: 'How to see the key: what runs, what waits, the next release.' }),
      })
      .meta({
        description:
          "A trigger of it waits for a slot of a `flow.concurrency` key (its worker holds the instance's lease meanwhile): applied when a slot frees, or handed back to be retried after `maxWait`.",
      }),
    z
      .object({
        class: z.literal('waitingForRoom'),
        waits: z.array(
          z.object({
            stateId: z.string(),
            key: z.string(),
            position: z.number().int().meta({ description: "Its place in the state and key's queue, 1 for the next admitted." }),
            queuedOnKey: z.number().int().meta({ description: 'Waiters in the queue.' }),
            members: z.number().int().meta({ description: 'Instances counted in the state under the key.' }),
            limit: z.number().int(),
            arrivedAt: timestamp,
            deadline: timestamp.meta({ description: 'When its wait ends unadmitted; the instance then stays where it is until its next change.' }),
          }),
        ),
        view: z.object({ cli: z.string(), http: z.object({ method: z.literal('GET'), path: z.string() }) }).meta({ description: "How to see the key: the state's members and waiters." }),
      })
      .meta({
        description:
          "An automatic transition of its state is not taken because its target is full (`capacity`): it waits in that state and key's queue and takes the transition when an instance leaves.",
      }),
    z
      .object({
        class: z.literal('leaseHeld'),
        heldByThisProcess: z.boolean(),
        since: timestamp.optional().meta({ description: 'When it was taken: known only when the answering process holds it.' }),
        expiresBy: timestamp.optional().meta({ description: 'When it ends unless renewed (held here), or the latest it ends if its holder elsewhere stopped renewing; absent for an infinite lease.' }),
        infinite: z.boolean().meta({ description: 'An infinite lease never expires: if its holder crashed, only breaking it frees the instance.' }),
        possiblyCrashedWorker: z.boolean().meta({ description: 'Held by another process: working, or crashed.' }),
      })
      .meta({ description: 'A worker holds its lease: a change is under way, or that worker crashed.' }),
    z
      .object({
        class: z.literal('waitingForRetry'),
        triggerId: z.string(),
        triggerName: z.string(),
        attempt: z.number().int(),
        nextAttemptAt: timestamp,
        stepPath: z.string(),
        lastError: stepErrorShape,
      })
      .meta({ description: 'A failed step waits for its next attempt; the engine applies the trigger again on its own.' }),
    z
      .object({
        class: z.literal('debounced'),
        bursts: z.array(
          z.object({
            triggerName: z.string(),
            coalesced: z.number().int().meta({ description: 'Triggers the burst holds.' }),
            firstAt: timestamp,
            dueAt: timestamp.meta({ description: 'When it is applied unless another trigger of the burst arrives first.' }),
            latestAt: timestamp.optional().meta({ description: 'The latest it is applied (`maxWaitMs` after its first trigger); absent without `maxWaitMs`.' }),
            overdue: z.boolean().meta({ description: 'Due and not applied yet.' }),
          }),
        ),
      })
      .meta({ description: 'Triggers held back by `flow.debounce`: each burst is applied once, on its own, when it goes quiet.' }),
    z
      .object({
        class: z.literal('waitingForChildren'),
        children: z.array(z.object({ instanceId: z.string(), workflowId: z.string(), stateId: z.string(), status: instanceStatusSchema })),
        moreChildren: z.number().int().meta({ description: 'Running children not named (past the first 20).' }),
      })
      .meta({ description: 'Children it started have not ended.' }),
    z
      .object({
        class: z.literal('waitingForTimer'),
        timers: z.array(z.object({ transitionId: z.string(), targetStateId: z.string(), dueAt: timestamp, overdue: z.boolean().meta({ description: 'Due and not fired yet.' }) })),
      })
      .meta({ description: 'A timer of its state is armed.' }),
    z
      .object({
        class: z.literal('waitingForTrigger'),
        triggers: z.array(
          z.object({
            transitionId: z.string(),
            triggerNames: z.array(z.string()).meta({ description: 'The names it answers; `["*"]` for any name.' }),
            exceptTriggerNames: z.array(z.string()).optional(),
            targetStateId: z.string(),
            who: z.array(z.string()).optional().meta({ description: "Who may take it, from the transition's `actors` rule (every part must hold). Absent: anyone with Signalbox.Sender." }),
          }),
        ),
        subjects: z.array(z.string()).meta({ description: 'The subjects that reach it: a trigger reaches it when one of its subjects is among these.' }),
      })
      .meta({ description: 'Its state answers triggers.' }),
    z
      .object({ class: z.literal('heldNotifications'), count: z.number().int(), triggers: z.array(z.object({ triggerId: z.string(), name: z.string() })) })
      .meta({ description: 'Notifications held until it is resumed or recovered.' }),
    z.object({ class: z.literal('stranded'), stateId: z.string() }).meta({ description: 'Its state answers no trigger and no timer of it is armed: recover, migrate or cancel it.' }),
  ])
  .meta({ id: 'WaitingReason' });

export const waitingAnswerSchema = z
  .object({
    instanceId: z.string(),
    workflowId: z.string(),
    workflowVersion: z.number().int(),
    stateId: z.string(),
    status: instanceStatusSchema,
    class: waitingClassSchema.meta({ description: 'The primary class, that of `reasons[0]`.' }),
    since: timestamp.meta({ description: 'Not moving since: when it faulted, was suspended, or last changed.' }),
    reasons: z.array(waitingReasonSchema).meta({ description: 'Every situation it is in, in precedence order.' }),
  })
  .meta({ id: 'WaitingAnswer', description: 'Why an instance is not moving. A final instance answers the class `final`.' });

export const waitingSummarySchema = z
  .object({
    workflowId: z.string(),
    scanned: z.number().int().meta({ description: 'Instances read.' }),
    notFinal: z.number().int().meta({ description: 'Instances counted.' }),
    truncated: z.boolean().meta({ description: 'More instances exist than one summary reads (see Limits): the counts cover those read.' }),
    groups: z.array(
      z.object({
        class: waitingClassSchema,
        stateId: z.string(),
        count: z.number().int(),
        oldest: z.object({ instanceId: z.string(), since: timestamp }),
        triggerNames: z.array(z.string()).optional().meta({ description: 'For `waitingForTrigger`: the names its state answers.' }),
        causes: z
          .array(z.object({ cause: z.string(), count: z.number().int() }))
          .optional()
          .meta({ description: 'For `faulted`: the causes (first 200 characters), most frequent first.' }),
        otherCauses: z.number().int().optional().meta({ description: 'Faulted instances whose causes are past the first 10.' }),
      }),
    ),
  })
  .meta({ id: 'WaitingSummary', description: "A workflow's instances that are not final, per class and state, largest groups first." });

export const instanceWaitingRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'getInstanceWaiting',
    methods: ['GET'],
    route: 'instances/{instanceId}/waiting',
    role: Role.reader,
    authLevel: 'function',
    contract: {
      summary: 'Why an instance is not moving',
      description:
        "Every situation it is in, from a closed set (`class`), with what to do about each; the primary class first, by the precedence final, faulted, suspended, queuedForSlot, waitingForRoom, leaseHeld, waitingForRetry, debounced, waitingForChildren, waitingForTimer, waitingForTrigger, heldNotifications, stranded. Reads its lease, running children, suspension and (with a concurrency policy) the queues of its workflow's keys, (with an automatic transition into a state with capacity) that state's queues; changes nothing.",
      tags: ['instances'],
      path: z.object({ instanceId: z.string() }),
      responses: { 200: { description: 'The answer.', body: waitingAnswerSchema }, 404: 'No such instance.' },
    },
    async handle({ params }, { engine }) {
      return { status: 200, body: await engine.whyWaiting(params.instanceId) };
    },
  }),
];
