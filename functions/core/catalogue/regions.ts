/**
 * Regions: the groups of crossings a traveller chooses between (San Diego-Tijuana, El Paso-Juárez,
 * Laredo, Detroit-Windsor, Niagara, Cascadia...). A region is decided from the port's border, US
 * state and US city alone, so a port the feeds add outside the catalogue still falls in one, and
 * the site's browser scripts can group ports without carrying the catalogue.
 */
import type { Border } from '../model.ts';

/** Region ids, in the order they are listed: west to east along each border. */
export const REGIONS = [
  'san-diego-tijuana',
  'imperial-mexicali',
  'arizona-sonora',
  'el-paso-juarez',
  'big-bend-coahuila',
  'laredo',
  'rio-grande-valley',
  'cascadia',
  'prairies',
  'michigan-ontario',
  'niagara',
  'st-lawrence-champlain',
  'maine-new-brunswick',
] as const;

export type Region = (typeof REGIONS)[number];

/** What a region is decided from. */
export interface RegionInput {
  border: Border;
  state: string;
  city: string;
}

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();

/** The region of a port, from its US state and city. */
export function regionOf(port: RegionInput): Region {
  const city = fold(port.city);
  switch (port.state) {
    case 'CA':
      return /calexico|andrade|imperial/.test(city) ? 'imperial-mexicali' : 'san-diego-tijuana';
    case 'AZ':
      return 'arizona-sonora';
    case 'NM':
      return 'el-paso-juarez';
    case 'TX':
      if (/el paso|tornillo|fabens|hancock|ysleta/.test(city)) return 'el-paso-juarez';
      if (/laredo/.test(city)) return 'laredo';
      if (/presidio|del rio|eagle pass/.test(city)) return 'big-bend-coahuila';
      return 'rio-grande-valley';
    case 'WA':
    case 'ID':
      return 'cascadia';
    case 'MI':
      return 'michigan-ontario';
    case 'NY':
      return /buffalo|niagara|lewiston/.test(city) ? 'niagara' : 'st-lawrence-champlain';
    case 'VT':
    case 'NH':
      return 'st-lawrence-champlain';
    case 'ME':
      return 'maine-new-brunswick';
    default:
      return port.border === 'mx' ? 'rio-grande-valley' : 'prairies';
  }
}
