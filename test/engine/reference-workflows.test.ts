import expenseClaim from '../../examples/expense-claim.json';
import dataCatalogItem from '../../examples/data-catalog-item.json';
import { Engine, timerTriggerId } from '../../src/engine';
import { ManualClock, createInMemoryPorts } from '../../src/testing';
import { recordingLogger, testEngine } from './support';

let n = 0;
const send = (name: string, subjects: string[], parameters?: Record<string, unknown>) => ({ id: `r${++n}`, name, subjects, ...(parameters ? { parameters: parameters as never } : {}) });

describe('reference workflow: simple expense claim', () => {
  async function claim(instanceId = 'claim-1') {
    const env = testEngine();
    await env.engine.createWorkflow(env.engine.validateWorkflow(expenseClaim));
    await env.engine.createInstance({ workflowId: 'expense-claim', instanceId, context: { claimantId: 'u7' } });
    const apply = (name: string, parameters?: Record<string, unknown>, subjects = [instanceId]) => env.engine.applyTrigger(instanceId, send(name, subjects, parameters));
    return { ...env, apply };
  }

  it('update → submit → approve → pay ends paid and complete, with the context and history of every step', async () => {
    const { engine, apply, logger } = await claim();
    expect((await apply('Update', { amount: 42, description: 'train' })).toStateId).toBe('waiting-for-submission');
    expect((await apply('Submit', { at: '2026-01-02' })).toStateId).toBe('waiting-for-approval');
    expect((await apply('Approve', { by: 'boss' })).toStateId).toBe('waiting-for-payment');
    expect((await apply('Pay', { at: '2026-01-03' })).toStateId).toBe('paid');
    const instance = await engine.getInstance('claim-1');
    expect(instance).toMatchObject({
      status: 'complete',
      stateId: 'paid',
      context: { claimantId: 'u7', amount: 42, description: 'train', submittedAt: '2026-01-02', approvedBy: 'boss', paidAt: '2026-01-03' },
    });
    expect(logger.lines).toContainEqual(expect.objectContaining({ message: 'Claim claim-1 of 42 paid' }));
    // Approving 42 checks the amount and moves on at once, in the same change: one history entry per step.
    expect((await engine.getHistory('claim-1')).items.map((entry) => entry.transitionId)).toEqual([null, 'update', 'submit', 'approve', 'ready-for-payment', 'pay']);
    expect((await apply('Abandon')).outcome).toBe('notActive');
  });

  it('routes a claim over 1,000 to a second approval (an automatic transition), then to payment', async () => {
    const { engine, apply } = await claim();
    await apply('Update', { amount: 2500, description: 'conference' });
    await apply('Submit', { at: '2026-01-02' });
    expect(await apply('Approve', { by: 'boss' })).toMatchObject({ transitionId: 'approve', fromStateId: 'waiting-for-approval', toStateId: 'waiting-for-second-approval' });
    expect((await engine.findCandidates(['directors'])).items).toEqual(['claim-1']);
    expect((await apply('Approve', { by: 'director' }, ['directors'])).toStateId).toBe('waiting-for-payment');
    expect((await engine.getInstance('claim-1')).context).toMatchObject({ approvedBy: 'boss', secondApprovedBy: 'director' });
    expect((await engine.getHistory('claim-1')).items.map((entry) => [entry.transitionId, entry.toStateId])).toEqual([
      [null, 'waiting-for-submission'],
      ['update', 'waiting-for-submission'],
      ['submit', 'waiting-for-approval'],
      ['approve', 'checking-amount'],
      ['needs-second-approval', 'waiting-for-second-approval'],
      ['second-approve', 'waiting-for-payment'],
    ]);
  });

  it('is offered triggers by its declared interests in each state', async () => {
    const { engine, apply } = await claim();
    expect((await engine.findCandidates(['claimant:u7'])).items).toEqual(['claim-1']);
    expect((await apply('Update', { amount: 5 }, ['claimant:u7'])).outcome).toBe('transitioned');
    expect((await apply('Approve', {}, ['approvers'])).outcome).toBe('notInterested');
    await apply('Submit', { at: 'x' });
    expect((await engine.findCandidates(['approvers'])).items).toEqual(['claim-1']);
    expect((await engine.findCandidates(['claimant:u7'])).items).toEqual([]);
    expect((await apply('Reject', { reason: 'receipt' }, ['approvers'])).toStateId).toBe('waiting-for-submission');
    expect((await engine.getInstance('claim-1')).context).toMatchObject({ rejectionReason: 'receipt' });
    expect((await engine.getInstance('claim-1')).context.submittedAt).toBeUndefined();
  });

  it('escalates once after 16 working hours awaiting approval (office calendar), on the test clock', async () => {
    // Submitted on Friday 20 November 2026 at 16:00 London time: 1.5 + 8.5 + 6 working hours is Tuesday 15:00.
    const clock = new ManualClock('2026-11-20T16:00:00.000Z');
    const logger = recordingLogger();
    const engine = new Engine(createInMemoryPorts(), { clock, logger });
    await engine.createWorkflow(engine.validateWorkflow(expenseClaim));
    await engine.createInstance({ workflowId: 'expense-claim', instanceId: 'claim-9', context: { claimantId: 'u7', amount: 10 } });
    await engine.applyTrigger('claim-9', send('Submit', ['claim-9'], { at: '2026-11-20' }));
    expect((await engine.getInstance('claim-9')).timers).toEqual([{ transitionId: 'escalate', dueAt: '2026-11-24T15:00:00.000Z' }]);

    await clock.advanceTo('2026-11-24T14:59:59.999Z');
    expect((await engine.getInstance('claim-9')).context.escalated).toBeUndefined();
    await clock.advanceBy(1);
    const escalated = await engine.getInstance('claim-9');
    expect(escalated).toMatchObject({ stateId: 'waiting-for-approval', context: { escalated: true } });
    // The self-transition re-armed the timer for the new entry, 16 working hours on (2.5 + 8.5 + 5): Thursday
    // 14:00. When it fires its condition is false: `noTransition`, and it is spent.
    expect(escalated.timers).toEqual([{ transitionId: 'escalate', dueAt: '2026-11-26T14:00:00.000Z' }]);
    expect(logger.lines).toContainEqual(expect.objectContaining({ message: 'Claim claim-9 escalated: 16 working hours without approval' }));
    await clock.advanceBy(7 * 24 * 3600_000);
    expect(await engine.getInstance('claim-9')).toMatchObject({ stateId: 'waiting-for-approval', timers: [] });
    expect((await engine.getHistory('claim-9')).items.map((entry) => entry.triggerId)).toEqual([
      null,
      expect.stringMatching(/^r/),
      timerTriggerId('claim-9', 1, 'escalate', (await engine.getInstance('claim-9')).incarnation),
    ]);
  });

  it('cannot be submitted without an amount (entry condition of waiting-for-approval); can be abandoned', async () => {
    const { engine, apply } = await claim();
    expect((await apply('Submit', { at: 'x' })).outcome).toBe('entryBlocked');
    expect((await apply('Pay')).outcome).toBe('noTransition');
    expect((await apply('Abandon')).toStateId).toBe('abandoned');
    expect((await engine.getInstance('claim-1')).status).toBe('complete');
  });
});

describe('reference workflow: data catalog item', () => {
  async function item(context: Record<string, unknown>, instanceId = 'item-1') {
    const env = testEngine();
    await env.engine.createWorkflow(dataCatalogItem);
    const created = await env.engine.createInstance({ workflowId: 'data-catalog-item', instanceId, context: context as never });
    const apply = (name: string, parameters?: Record<string, unknown>) => env.engine.applyTrigger(instanceId, send(name, [instanceId], parameters));
    return { ...env, created, apply };
  }

  it('needs Identifier and Type to start (initial entry condition), else it is created faulted', async () => {
    const { created } = await item({ Identifier: 'ds-1' });
    expect(created).toMatchObject({ status: 'faulted', fault: { message: expect.stringContaining('initial state "waiting-for-documentation"') } });
    const ok = await item({ Identifier: 'ds-1', Type: 'table' });
    expect(ok.created).toMatchObject({ status: 'waiting', stateId: 'waiting-for-documentation', context: { documented: false } });
    expect(ok.created.interests).toEqual(expect.arrayContaining(['catalog:ds-1', 'catalog-type:table']));
  });

  it('edits move it between published and waiting-for-documentation depending on the data', async () => {
    const { engine, apply, delivery } = await item({ Identifier: 'ds-1', Type: 'table' });
    expect(await apply('Edit', { name: 'Sales' })).toMatchObject({ transitionId: 'edit', toStateId: 'waiting-for-documentation' });
    expect(await apply('Edit', { description: '' })).toMatchObject({ transitionId: 'edit', toStateId: 'waiting-for-documentation' });
    expect(await apply('Edit', { description: 'All sales' })).toMatchObject({ transitionId: 'edit-documented', toStateId: 'published' });
    expect(delivery.delivered).toEqual([expect.objectContaining({ name: 'CatalogItemPublished', subjects: ['catalog-feed', 'catalog:ds-1'], parameters: { identifier: 'ds-1' } })]);
    expect(await apply('Edit', { description: 'All sales, by day' })).toMatchObject({ transitionId: 'edit', toStateId: 'published' });
    expect((await engine.getInstance('item-1')).context).toMatchObject({ Description: 'All sales, by day', documented: true });
    expect(await apply('Edit', { description: '' })).toMatchObject({ transitionId: 'edit-undocumented', toStateId: 'waiting-for-documentation' });
    const back = await engine.getInstance('item-1');
    expect(back.context).toMatchObject({ documented: false, Name: 'Sales' });
    expect(back.context.Description).toBeUndefined();
    expect(back.interests).not.toContain('published');
  });

  it('published needs the publishable flag on entry, and a lock keeps it from leaving (exit condition)', async () => {
    const unpublishable = await item({ Identifier: 'ds-5', Type: 'file', publishable: false });
    expect(await unpublishable.apply('Edit', { description: 'Secret' })).toMatchObject({ outcome: 'entryBlocked', toStateId: 'published' });
    expect((await unpublishable.engine.getInstance('item-1')).stateId).toBe('waiting-for-documentation');

    const { engine, apply } = await item({ Identifier: 'ds-2', Type: 'file' });
    expect((await apply('Edit', { description: 'Files', locked: true })).toStateId).toBe('published');
    expect((await apply('Deprecate')).outcome).toBe('exitBlocked');
    expect((await apply('Edit', { description: '' })).outcome).toBe('exitBlocked');
    expect((await engine.getInstance('item-1')).stateId).toBe('published');
  });

  it('deprecate and delete end it', async () => {
    const deprecated = await item({ Identifier: 'ds-3', Type: 'table' });
    await deprecated.apply('Edit', { description: 'd' });
    expect((await deprecated.apply('Deprecate')).toStateId).toBe('deprecated');
    expect((await deprecated.engine.getInstance('item-1')).status).toBe('complete');
    expect((await deprecated.apply('Edit', { description: 'again' })).outcome).toBe('notActive');
    const deleted = await item({ Identifier: 'ds-4', Type: 'table' });
    expect((await deleted.apply('Delete')).toStateId).toBe('deleted');
    expect((await deleted.engine.getInstance('item-1')).status).toBe('complete');
  });
});
