/**
 * The port catalogue: every CBP port seen in the feeds and every CBSA office, with zones,
 * slugs and the CBSA office mapping. The data and its sources are in `catalogue-data.ts`.
 */

import type { Border, Port } from '../model.ts';
import { CBSA_US_CITY_ALIASES, PORT_DATA } from './catalogue-data.ts';

/** Every catalogued port: CBP ports (id = `port_number`) and CBSA-only offices (id `cbsa-<slug>`). */
export const PORTS: readonly Port[] = PORT_DATA;

// The lookup tables are built in calls marked pure: a bundle that imports this module but reads
// none of them (the authorizers, through the view table) leaves them and the port data out.
const byId = /* @__PURE__ */ (() => new Map(PORTS.map((port) => [port.id, port])))();

/** The catalogue entry of a CBP port number (case-sensitive: `l24501` and `L01901` differ). */
export function getPort(id: string): Port | undefined {
  return byId.get(id);
}

/** The ports on one border, in catalogue order. */
export function portsByBorder(border: Border): readonly Port[] {
  return PORTS.filter((port) => port.border === border);
}

/**
 * Kebab-case ASCII slug of a free text: accents dropped, `&` read as `and`, every other run of
 * non-alphanumerics one hyphen (`Pont des Mille-Îles` -> `pont-des-mille-iles`). Empty when the
 * text has no letter or digit.
 */
export function slugify(text: string): string {
  return text
    .replaceAll('&', ' and ')
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * Comparison key of a name: case, accents, spaces and punctuation ignored, so the spellings CBSA
 * has used over the years meet (`St.Stephen 3rd Bridge` / `St. Stephen 3rd Bridge`,
 * `Sweet Grass` / `Sweetgrass`).
 */
function nameKey(text: string): string {
  return slugify(text).replaceAll('-', '');
}

/** The US side of a CBSA `Location` (`Fort Erie, ON/Buffalo, NY` -> Buffalo, NY). */
interface UsPlace {
  cityKey: string;
  state: string | null;
}

function parseCbsaLocation(location: string): UsPlace | undefined {
  // `<CA city>, <PROV>/<US city>, <ST>`: the US side follows the slash.
  const slash = location.lastIndexOf('/');
  if (slash < 0) return undefined;
  const match = /^\s*(.+?)(?:\s*,\s*([A-Za-z]{2}))?\s*$/u.exec(location.slice(slash + 1));
  const city = match?.[1];
  if (city === undefined || nameKey(city) === '') return undefined;
  return { cityKey: nameKey(city), state: match?.[2]?.toUpperCase() ?? null };
}

const officeKeysByPort = /* @__PURE__ */ (() =>
  new Map(PORTS.map((port) => [port.id, new Set(port.cbsaOffices.map(nameKey))])))();
const cityKeysByPort = /* @__PURE__ */ (() =>
  new Map(
    PORTS.map((port) => [
      port.id,
      new Set([port.city, ...(CBSA_US_CITY_ALIASES[port.id] ?? [])].map(nameKey)),
    ]),
  ))();

function hasOffice(port: Port, officeKey: string): boolean {
  return officeKeysByPort.get(port.id)?.has(officeKey) ?? false;
}

/**
 * The catalogue port of a CBSA office, from its row's `Customs Office` and `Location` cells.
 *
 * Matches on the US city of the location (with the aliases CBSA uses, e.g. Rooseveltown for
 * Massena) and, where that city has several ports (Calais, Madawaska, Niagara Falls, Detroit,
 * Blaine), on the office name through the table of every spelling seen, English and French. A
 * city with a single port needs no office-name match, so a renamed office still maps. When the
 * US city is not in the catalogue, a known office name is accepted only if its port is in the
 * location's state. An office name alone never decides between ports of the same city.
 *
 * @returns the port, or undefined when the office cannot be mapped with confidence.
 */
export function findPortByCbsaOffice(office: string, location: string): Port | undefined {
  const officeKey = nameKey(office);
  const place = parseCbsaLocation(location);
  if (place === undefined) return undefined;
  const sameState = (port: Port) => place.state === null || port.state === place.state;

  const inCity = PORTS.filter(
    (port) => port.border === 'ca' && sameState(port) && cityKeysByPort.get(port.id)?.has(place.cityKey),
  );
  if (inCity.length > 0) {
    const named = inCity.filter((port) => hasOffice(port, officeKey));
    if (named.length === 1) return named[0];
    return inCity.length === 1 ? inCity[0] : undefined;
  }

  const named = PORTS.filter((port) => port.border === 'ca' && hasOffice(port, officeKey));
  return named.length === 1 && named[0] !== undefined && place.state !== null && sameState(named[0])
    ? named[0]
    : undefined;
}
