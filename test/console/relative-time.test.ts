/** Timers show when they are due relative to now, in the largest unit of which there are two or more. */
import { relativeTime } from '../../console/src/lib/relative-time';

const now = Date.parse('2026-11-23T12:00:00.000Z');

it.each([
  ['2026-11-24T04:00:00.000Z', 'in 16 hours'],
  ['2026-11-25T08:00:00.000Z', 'in 44 hours'],
  ['2026-11-23T12:03:20.000Z', 'in 3 minutes'],
  ['2026-11-23T13:00:00.000Z', 'in 60 minutes'],
  ['2026-11-23T12:00:20.000Z', 'in 20 seconds'],
  ['2026-11-26T12:00:00.000Z', 'in 3 days'],
  ['2026-11-23T11:58:00.000Z', '2 minutes ago'],
  ['2026-11-23T12:00:00.000Z', 'now'],
])('says %s is %s', (dueAt, text) => {
  expect(relativeTime(dueAt, now, 'en')).toBe(text);
});

it('gives nothing for a value that is not a date', () => {
  expect(relativeTime('soon', now, 'en')).toBeUndefined();
});
