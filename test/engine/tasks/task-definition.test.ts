/** A state's `task` (issue 39, part 1): what the schema accepts, and every mistake named by its JSON path. */
import { DefinitionInvalidError, outcomeParametersSchema, validateDefinition, type WorkflowDefinitionInput } from '../../../src/engine';

function workflow(task: object, extra: object = {}): WorkflowDefinitionInput {
  return {
    id: 'claims',
    displayName: 'Claims',
    initialStateId: 'review',
    calendars: { office: { timeZone: 'Europe/London', workingHours: [{ days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], from: '09:00', to: '17:00' }] } },
    states: {
      review: {
        task,
        transitions: [
          { id: 'approve', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Approve' }] },
          { id: 'reject', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Reject' }] },
        ],
      },
      done: {},
    },
    ...extra,
  } as WorkflowDefinitionInput;
}

const approval = {
  title: 'Approve the claim of {{context.claimant}}',
  assignees: { groups: ['approvers'] },
  outcomes: [{ name: 'Approve' }, { name: 'Reject', parameters: { type: 'object', properties: { reason: { type: 'string', minLength: 3 } }, required: ['reason'] } }],
  due: { after: 'PT16H', calendar: 'office' },
  calendar: 'office',
  escalation: [
    { after: 'PT16H', action: 'remind' },
    { after: 'PT24H', action: 'escalate', assignees: { roles: ['manager'] } },
    { after: 'PT40H', action: 'decide', outcome: 'Reject' },
  ],
  quorum: 'any',
  fourEyes: 'context.claimant',
};

function problems(definition: unknown): { path: string; message: string }[] {
  try {
    validateDefinition(definition);
    return [];
  } catch (error) {
    if (!(error instanceof DefinitionInvalidError)) throw error;
    return error.issues.map(({ path, message }) => ({ path, message }));
  }
}

describe('a state’s task', () => {
  it('accepts a full approval task and keeps it on the parsed state', () => {
    const definition = validateDefinition(workflow(approval));
    expect(definition.states.review!.task?.outcomes.map((outcome) => outcome.name)).toEqual(['Approve', 'Reject']);
    expect(definition.states.review!.task?.escalation?.[2]).toEqual({ after: 'PT40H', action: 'decide', outcome: 'Reject' });
  });

  it('names every mistake by its path', () => {
    const paths = problems(
      workflow({
        ...approval,
        title: 'Approve {{context.',
        assignees: {},
        outcomes: [{ name: 'Approve' }, { name: 'Approve', parameters: { type: 'nonsense' } }],
        due: { after: 'soon' },
        escalation: [
          { after: 'PT1H', action: 'reassign' },
          { after: 'P1D', action: 'decide', outcome: 'Maybe' },
          { after: 'PT2H', action: 'remind', calendar: 'nowhere' },
        ],
        quorum: { count: 0 },
        fourEyes: '$$$(',
        unreachableOutcome: 'Approve',
      }),
    ).map((problem) => problem.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'states.review.task.title',
        'states.review.task.assignees',
        'states.review.task.outcomes[1].name',
        'states.review.task.outcomes[1].parameters',
        'states.review.task.due.after',
        'states.review.task.escalation[0].assignees',
        'states.review.task.escalation[1].outcome',
        'states.review.task.escalation[2].calendar',
        'states.review.task.quorum.count',
        'states.review.task.fourEyes',
      ]),
    );
  });

  it('refuses an unreachable outcome under quorum any, and a task on a final state', () => {
    expect(problems(workflow({ ...approval, unreachableOutcome: 'Reject' }))).toEqual([expect.objectContaining({ path: 'states.review.task.unreachableOutcome' })]);
    const final = workflow(approval);
    (final.states as Record<string, object>).done = { task: approval };
    expect(problems(final)).toEqual([expect.objectContaining({ path: 'states.done.task', message: expect.stringContaining('final state') })]);
  });

  it('refuses a calendar the workflow does not have', () => {
    expect(problems(workflow({ ...approval, calendar: 'elsewhere' }))).toEqual([expect.objectContaining({ path: 'states.review.task.calendar' })]);
    expect(problems(workflow({ ...approval, due: { after: 'PT1H', calendar: 'elsewhere' } }))).toEqual([expect.objectContaining({ path: 'states.review.task.due.calendar' })]);
  });

  it('checks an outcome’s parameters against its JSON Schema, naming the field', () => {
    const definition = validateDefinition(workflow(approval));
    const schema = outcomeParametersSchema(definition.states.review!.task!.outcomes[1]!)!;
    expect(schema.safeParse({ reason: 'too expensive' }).success).toBe(true);
    const refused = schema.safeParse({ reason: 'no' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => issue.path)).toEqual([['reason']]);
    expect(outcomeParametersSchema(definition.states.review!.task!.outcomes[0]!)).toBeUndefined();
  });
});
