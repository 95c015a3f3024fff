/**
 * @module "in 44 hours", "3 minutes ago": a moment relative to now, in the reader's language
 * (Intl.RelativeTimeFormat, built into every browser). A unit is used from two of it up, rounded, so
 * 44 hours reads "in 44 hours" rather than "tomorrow" (which may be the day after).
 */
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

export function relativeTime(value: string, now: number, locale?: string): string | undefined {
  const at = new Date(value).getTime();
  if (Number.isNaN(at)) return undefined;
  const differenceInMs = at - now;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const unit = UNITS.find(([, size]) => Math.abs(differenceInMs) >= 2 * size);
  if (unit) return format.format(Math.round(differenceInMs / unit[1]), unit[0]);
  return format.format(Math.round(differenceInMs / 1000), 'second');
}
