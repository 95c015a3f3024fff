/**
 * @module "in 15 hours", "3 minutes ago": a moment relative to now, in the reader's language
 * (Intl.RelativeTimeFormat, built into every browser), in the largest unit that is at least one.
 */
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

export function relativeTime(value: string, now: number, locale?: string): string | undefined {
  const at = new Date(value).getTime();
  if (Number.isNaN(at)) return undefined;
  const differenceInMs = at - now;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, size] of UNITS) {
    if (Math.abs(differenceInMs) >= size || unit === 'second') return format.format(Math.trunc(differenceInMs / size), unit);
  }
  return undefined;
}
