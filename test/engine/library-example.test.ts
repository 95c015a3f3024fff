/** The library example of docs/guides/library.md (examples/in-process.ts) runs and does what it says. */
import { runExpenseClaim } from '../../examples/in-process';

it('runs the expense claim in process, with a custom condition type', async () => {
  const result = await runExpenseClaim();
  expect(result).toMatchObject({ stateId: 'paid', status: 'complete' });
  expect(result.context).toMatchObject({ claimantId: 'ann', amount: 120, description: 'Train', approvedBy: 'bob', paidAt: '2026-11-23' });
});
