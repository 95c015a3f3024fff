/**
 * @module The timer of a transition and the workflow's business calendars, as written in a definition
 * (shared/design/workflow-model.md, "Timers"). ISO 8601 durations are parsed by luxon's
 * `Duration.fromISO` (not by hand), time zones are IANA names checked by luxon too. A malformed duration
 * is reported at its own path, e.g. `states.waiting.transitions[1].timer.after`.
 */
import { Duration, IANAZone } from 'luxon';
import { z } from 'zod';

/** Durations with a calendar count working time, so only clock units (hours, minutes, seconds) make sense. */
const CALENDAR_UNITS = new Set(['hours', 'minutes', 'seconds', 'milliseconds']);

/**
 * The longest a timer may wait after its state is entered: 36,525 days (100 years). Past it an `after` is
 * refused when the workflow is defined, and an `at` instant faults the instance; JavaScript's own limit
 * (the year 275760) was reached as "Invalid time value", naming nothing.
 */
export const MAX_TIMER_DELAY_IN_DAYS = 36_525;
export const MAX_TIMER_DELAY_TEXT = `${MAX_TIMER_DELAY_IN_DAYS.toLocaleString('en-US')} days (100 years)`;

/** The duration an ISO 8601 text gives, or a message saying why it is not one. */
export function parseIsoDuration(text: string): Duration | string {
  const duration = Duration.fromISO(text);
  if (!duration.isValid) return `"${text}" is not an ISO 8601 duration (e.g. PT48H, P3D, P1DT12H)`;
  const units = duration.toObject();
  if (Object.values(units).some((value) => (value ?? 0) < 0)) return `"${text}" is negative; a timer counts forward`;
  // Years and months count as 365 and 30 days here (luxon's casual conversion).
  if (duration.as('days') > MAX_TIMER_DELAY_IN_DAYS) return `"${text}" is longer than the ${MAX_TIMER_DELAY_TEXT} a timer may wait`;
  return duration;
}

export const timerSchema = z
  .strictObject({
    /** ISO 8601 duration from the moment the state is entered. */
    after: z.string().min(1).max(64).optional(),
    /** JSONata giving an ISO 8601 instant, evaluated after the entry actions. */
    at: z.string().min(1).max(4096).optional(),
    /** A calendar of the workflow's `calendars`: `after` then counts only its working time. */
    calendar: z.string().min(1).max(128).optional(),
  })
  .superRefine((timer, ctx) => {
    if ((timer.after === undefined) === (timer.at === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'a timer needs exactly one of "after" (an ISO 8601 duration) or "at" (an expression giving an instant)' });
    }
    if (timer.calendar !== undefined && timer.after === undefined) {
      ctx.addIssue({ code: 'custom', path: ['calendar'], message: 'a calendar counts working time for "after"; an "at" instant takes none' });
    }
    if (timer.after === undefined) return;
    const duration = parseIsoDuration(timer.after);
    if (typeof duration === 'string') {
      ctx.addIssue({ code: 'custom', path: ['after'], message: duration });
      return;
    }
    if (timer.calendar !== undefined) {
      const units = Object.entries(duration.toObject()).filter(([, value]) => value);
      if (units.some(([unit]) => !CALENDAR_UNITS.has(unit))) {
        ctx.addIssue({ code: 'custom', path: ['after'], message: `with a calendar, give working time in hours, minutes and seconds (e.g. PT16H), not "${timer.after}"` });
      }
    }
  });
export type TimerDefinition = z.infer<typeof timerSchema>;

export const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

const clockTimeSchema = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a time of day "HH:MM" (00:00 to 24:00)');

/** Minutes since midnight of an "HH:MM" text. */
export function minutesOf(clockTime: string): number {
  const [hours, minutes] = clockTime.split(':').map(Number);
  return hours! * 60 + minutes!;
}

const workingHoursSchema = z
  .strictObject({
    days: z.array(z.enum(DAY_NAMES)).min(1).max(7),
    from: clockTimeSchema,
    to: clockTimeSchema,
  })
  .refine((hours) => minutesOf(hours.from) < minutesOf(hours.to), { message: '"from" must be earlier than "to" (working hours do not cross midnight)', path: ['to'] });

const isoDateSchema = z.iso.date('must be a date "YYYY-MM-DD"');

export const calendarSchema = z.strictObject({
  /** IANA time zone the working hours and holidays are in (daylight saving included). */
  timeZone: z
    .string()
    .min(1)
    .max(64)
    .refine((zone) => IANAZone.isValidZone(zone), 'must be an IANA time zone such as "Europe/London"'),
  workingHours: z.array(workingHoursSchema).min(1).max(50),
  /** Whole days without working time, in the calendar's time zone. */
  holidays: z.array(isoDateSchema).max(2000).default([]),
});
export type CalendarDefinition = z.infer<typeof calendarSchema>;

export const calendarsSchema = z.record(z.string().min(1).max(128), calendarSchema).refine((calendars) => Object.keys(calendars).length <= 20, 'at most 20 calendars');
