/**
 * A port's opening hours as CBP publishes them (`24 hrs/day`, `6 am-10 pm`, `6 am-Midnight`,
 * `10 am-6 pm`: `<h> am|pm-<h> am|pm|Midnight`), read as the port-local minutes of the day it is
 * open. Text in any other form reads as unknown: nothing is assumed closed.
 */

/** Open from `from` to `to` (exclusive), port-local minutes of the day; `to` below `from` runs past midnight. */
export interface OpenHours {
  from: number;
  to: number;
}

const DAY_MINUTES = 24 * 60;
/** One end: `6 am`, `7:30 pm`, `10pm`, `Midnight`, `Noon`. */
const END = /^(?:(\d{1,2})(?::([0-5]\d))? ?([ap])\.? ?m\.?|(midnight)|(noon))$/i;

/** Port-local minutes of the day of one end, or null when it is not one. */
function minutesOf(end: string): number | null {
  const match = END.exec(end);
  if (!match) return null;
  const [, hour, minute, half, midnight, noon] = match;
  if (midnight) return 0;
  if (noon) return 12 * 60;
  const h = Number(hour);
  if (!(h >= 1 && h <= 12)) return null;
  return ((h % 12) + (half?.toLowerCase() === 'p' ? 12 : 0)) * 60 + Number(minute ?? 0);
}

/** The hours a port is open, `'always'`, or null when the text says neither in a form known. */
export function openHoursOf(text: string | null | undefined): OpenHours | 'always' | null {
  const hours = text?.trim().replace(/\s+/g, ' ');
  if (!hours) return null;
  if (/^24 ?(?:hrs?|hours?)(?: ?\/ ?day| a day)?$/i.test(hours)) return 'always';
  const ends = hours.split(/ ?(?:-|–|\bto\b) ?/i);
  if (ends.length !== 2) return null;
  const from = minutesOf(ends[0] as string);
  let to = minutesOf(ends[1] as string);
  if (from === null || to === null) return null;
  // Midnight as the end is the end of the day.
  if (to === 0) to = DAY_MINUTES;
  if (from === to || (from === 0 && to === DAY_MINUTES)) return 'always';
  return { from, to };
}

/** Whether a port with these hours is open at a port-local minute of the day (unknown hours: open). */
export function openAt(hours: OpenHours | 'always' | null, minuteOfDay: number): boolean {
  if (hours === null || hours === 'always') return true;
  return hours.from < hours.to
    ? minuteOfDay >= hours.from && minuteOfDay < hours.to
    : minuteOfDay >= hours.from || minuteOfDay < hours.to;
}
