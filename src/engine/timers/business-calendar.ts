/**
 * @module Working-time arithmetic in a business calendar: "16 working hours from now" in the calendar's
 * time zone, skipping nights, weekends and holidays. Wall-clock times and daylight saving come from luxon
 * (a working day of 09:00-17:30 is 8.5 hours on either side of a clock change; a "from" that falls in a
 * skipped hour starts when the clock reaches it). Elapsed working time is real time, so an interval the
 * clock change falls inside is an hour longer or shorter, as it is for the people working it.
 */
import { DateTime } from 'luxon';
import { DAY_NAMES, minutesOf, type CalendarDefinition } from './timer-definition';

/** How far ahead to look for working time before deciding the calendar has none (ten years). */
const MAX_DAYS_SEARCHED = 3660;

interface Interval {
  readonly from: number;
  readonly to: number;
}

/** Working intervals (minutes since midnight) per weekday (luxon: 1 = Monday), merged and sorted. */
function weeklyIntervals(calendar: CalendarDefinition): Map<number, Interval[]> {
  const byDay = new Map<number, Interval[]>();
  for (const hours of calendar.workingHours) {
    for (const day of hours.days) {
      const weekday = DAY_NAMES.indexOf(day) + 1;
      const list = byDay.get(weekday) ?? [];
      list.push({ from: minutesOf(hours.from), to: minutesOf(hours.to) });
      byDay.set(weekday, list);
    }
  }
  for (const [weekday, list] of byDay) {
    list.sort((a, b) => a.from - b.from);
    const merged: Interval[] = [];
    for (const interval of list) {
      const last = merged[merged.length - 1];
      if (last && interval.from <= last.to) merged[merged.length - 1] = { from: last.from, to: Math.max(last.to, interval.to) };
      else merged.push(interval);
    }
    byDay.set(weekday, merged);
  }
  return byDay;
}

const intervalCache = new WeakMap<CalendarDefinition, Map<number, Interval[]>>();

function at(day: DateTime, minutes: number): DateTime {
  // 24:00 is the next day's midnight; other times are set on the day (luxon moves a time in a DST gap forward).
  return minutes >= 24 * 60 ? day.plus({ days: 1 }).startOf('day') : day.set({ hour: Math.floor(minutes / 60), minute: minutes % 60, second: 0, millisecond: 0 });
}

/**
 * The instant reached after `workingMs` of working time from `start` in `calendar`. Starting outside
 * working hours counts from the next working moment; a due time never falls outside working hours
 * (except for zero, which is `start`). Throws when the calendar has no working time in ten years.
 */
export function addWorkingTime(start: Date, workingMs: number, calendar: CalendarDefinition): Date {
  if (workingMs <= 0) return start;
  let intervals = intervalCache.get(calendar);
  if (!intervals) intervalCache.set(calendar, (intervals = weeklyIntervals(calendar)));
  const holidays = new Set(calendar.holidays);
  let remaining = workingMs;
  let cursor: DateTime = DateTime.fromJSDate(start, { zone: calendar.timeZone });
  let day: DateTime = cursor.startOf('day');
  for (let searched = 0; searched < MAX_DAYS_SEARCHED; searched++, day = day.plus({ days: 1 }).startOf('day')) {
    if (holidays.has(day.toISODate()!)) continue;
    for (const interval of intervals.get(day.weekday) ?? []) {
      const to = at(day, interval.to);
      if (cursor >= to) continue;
      const from = DateTime.max(cursor, at(day, interval.from));
      const available = to.toMillis() - from.toMillis();
      if (remaining <= available) return from.plus({ milliseconds: remaining }).toJSDate();
      remaining -= available;
      cursor = to;
    }
  }
  throw new Error(`the calendar has no working time in the ${MAX_DAYS_SEARCHED} days after ${start.toISOString()}`);
}
