/**
 * The port-local hours a port is open, from the hours CBP publishes (`24 hrs/day`, `6 am-10 pm`,
 * `7 am-Midnight`). Every hour when the text says nothing we can read: better to show an hour the
 * port is closed than to hide one it is open.
 */
export function openHours(hours: string | null | undefined): number[] {
  const all = Array.from({ length: 24 }, (_, h) => h);
  const match = /(\d{1,2})\s*(am|pm)\s*-\s*(?:(\d{1,2})\s*(am|pm)|(midnight|noon))/i.exec(hours ?? '');
  if (!match) return all;
  const to24 = (h: number, half: string) => (h % 12) + (half.toLowerCase() === 'pm' ? 12 : 0);
  const from = to24(Number(match[1]), match[2] as string);
  const word = match[5]?.toLowerCase();
  const to = word === 'midnight' ? 24 : word === 'noon' ? 12 : to24(Number(match[3]), match[4] as string);
  if (to <= from) return all;
  return all.filter((h) => h >= from && h < to);
}
