/** Working time in business calendars (issue 13): time zones, daylight saving, holidays, outside hours. */
import { DateTime } from 'luxon';
import { addWorkingTime, calendarSchema, type CalendarDefinition } from '../../src/engine';

const HOUR = 3600_000;
const weekdays = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'];

function calendar(input: unknown): CalendarDefinition {
  return calendarSchema.parse(input);
}

const office = calendar({ timeZone: 'Europe/London', workingHours: [{ days: weekdays, from: '09:00', to: '17:30' }], holidays: ['2026-12-25', '2026-12-28'] });

/** The result as local wall-clock time in the calendar's zone, e.g. "Tue 2026-11-24 15:00". */
function local(date: Date, zone = 'Europe/London'): string {
  return DateTime.fromJSDate(date, { zone }).toFormat('ccc yyyy-MM-dd HH:mm');
}

function londonTime(text: string): Date {
  return DateTime.fromISO(text, { zone: 'Europe/London' }).toJSDate();
}

describe('addWorkingTime', () => {
  it('counts only working hours: 16 working hours from Friday 16:00 is Tuesday 15:00 (1.5 + 8.5 + 6 hours)', () => {
    expect(local(addWorkingTime(londonTime('2026-11-20T16:00'), 16 * HOUR, office))).toBe('Tue 2026-11-24 15:00');
  });

  it('starts at the next working moment when started outside working hours', () => {
    expect(local(addWorkingTime(londonTime('2026-11-23T07:00'), HOUR, office))).toBe('Mon 2026-11-23 10:00'); // before opening
    expect(local(addWorkingTime(londonTime('2026-11-23T18:00'), HOUR, office))).toBe('Tue 2026-11-24 10:00'); // after closing
    expect(local(addWorkingTime(londonTime('2026-11-21T12:00'), HOUR, office))).toBe('Mon 2026-11-23 10:00'); // weekend
  });

  it('never lands outside working hours: ending exactly at closing stays at closing, a minute more goes to the next day', () => {
    expect(local(addWorkingTime(londonTime('2026-11-23T09:00'), 8.5 * HOUR, office))).toBe('Mon 2026-11-23 17:30');
    expect(local(addWorkingTime(londonTime('2026-11-23T09:00'), 8.5 * HOUR + 60_000, office))).toBe('Tue 2026-11-24 09:01');
  });

  it('skips holidays', () => {
    // Thursday 24 December 16:00 + 2 working hours: 1.5 on Thursday; Friday 25th and Monday 28th are holidays.
    expect(local(addWorkingTime(londonTime('2026-12-24T16:00'), 2 * HOUR, office))).toBe('Tue 2026-12-29 09:30');
  });

  it('keeps working hours in local time across the change to summer time (the UTC result moves by an hour)', () => {
    // Clocks go forward on Sunday 29 March 2026: Friday 16:00 GMT + 16 working hours = Tuesday 15:00 BST = 14:00 UTC.
    const due = addWorkingTime(londonTime('2026-03-27T16:00'), 16 * HOUR, office);
    expect(local(due)).toBe('Tue 2026-03-31 15:00');
    expect(due.toISOString()).toBe('2026-03-31T14:00:00.000Z');
  });

  it('and back to winter time', () => {
    // Clocks go back on Sunday 25 October 2026.
    const due = addWorkingTime(londonTime('2026-10-23T16:00'), 16 * HOUR, office);
    expect(local(due)).toBe('Tue 2026-10-27 15:00');
    expect(due.toISOString()).toBe('2026-10-27T15:00:00.000Z');
  });

  it('counts real elapsed time when the clock change falls inside working hours', () => {
    const night = calendar({ timeZone: 'Europe/London', workingHours: [{ days: ['Sun'], from: '00:00', to: '04:00' }] });
    // 29 March 2026: 00:00-04:00 local holds only 3 real hours (01:00 GMT becomes 02:00 BST).
    expect(local(addWorkingTime(londonTime('2026-03-29T00:00'), 3 * HOUR, night))).toBe('Sun 2026-03-29 04:00');
    expect(local(addWorkingTime(londonTime('2026-03-29T00:00'), 3 * HOUR + 60_000, night))).toBe('Sun 2026-04-05 00:01');
    // 25 October 2026: the same hours hold 5 real hours.
    expect(local(addWorkingTime(londonTime('2026-10-25T00:00'), 5 * HOUR, night))).toBe('Sun 2026-10-25 04:00');
  });

  it('uses several intervals a day (a lunch break) and other time zones', () => {
    const split = calendar({
      timeZone: 'America/New_York',
      workingHours: [
        { days: weekdays, from: '09:00', to: '12:00' },
        { days: weekdays, from: '13:00', to: '17:00' },
      ],
    });
    expect(local(addWorkingTime(DateTime.fromISO('2026-11-23T11:00', { zone: 'America/New_York' }).toJSDate(), 2 * HOUR, split), 'America/New_York')).toBe('Mon 2026-11-23 14:00');
  });

  it('treats 24:00 as the end of the day, and zero as now', () => {
    const allDay = calendar({ timeZone: 'UTC', workingHours: [{ days: ['Mon'], from: '00:00', to: '24:00' }] });
    expect(addWorkingTime(new Date('2026-11-23T20:00:00Z'), 4 * HOUR, allDay).toISOString()).toBe('2026-11-24T00:00:00.000Z');
    expect(addWorkingTime(new Date('2026-11-23T20:00:00Z'), 5 * HOUR, allDay).toISOString()).toBe('2026-11-30T01:00:00.000Z');
    expect(addWorkingTime(new Date('2026-11-22T20:00:00Z'), 0, allDay).toISOString()).toBe('2026-11-22T20:00:00.000Z');
  });

  it('throws when the calendar has no working time ahead (the instance then faults)', () => {
    const mondays: string[] = [];
    for (let day = DateTime.fromISO('2026-11-23', { zone: 'UTC' }); mondays.length < 530; day = day.plus({ weeks: 1 })) mondays.push(day.toISODate()!);
    const never = calendar({ timeZone: 'UTC', workingHours: [{ days: ['Mon'], from: '09:00', to: '10:00' }], holidays: mondays });
    expect(() => addWorkingTime(new Date('2026-11-22T00:00:00Z'), HOUR, never)).toThrow(/no working time/);
  });
});
