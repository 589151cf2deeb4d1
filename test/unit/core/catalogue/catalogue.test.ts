import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  findPortByCbsaOffice,
  getPort,
  PORTS,
  portsByBorder,
  slugify,
} from '../../../../functions/core/catalogue/catalogue.ts';
import { DIRECTIONS } from '../../../../functions/core/model.ts';
import { matchPort } from '../../../../functions/core/views/port-directory.ts';

const capturesDir = fileURLToPath(new URL('../../../../../shared/fixtures/feeds/', import.meta.url));
const haveCaptures = existsSync(capturesDir);
const readCapture = (name: string): string => readFileSync(`${capturesDir}${name}`, 'utf8');

/** The 81 CBP port numbers seen in the captures (derived__cbp-port-catalogue-from-captures.csv). */
const CBP_IDS_SEEN = [
  '010401',
  '010601',
  '010901',
  '011501',
  '011502',
  '011503',
  '020901',
  '021101',
  '021201',
  '070101',
  '070401',
  '070801',
  '070803',
  '071201',
  '090101',
  '090102',
  '090103',
  '090104',
  '202401',
  '230103',
  '230201',
  '230301',
  '230302',
  '230401',
  '230402',
  '230403',
  '230404',
  '230501',
  '230502',
  '230503',
  '230701',
  '230901',
  '230902',
  '231001',
  '231002',
  '240201',
  '240202',
  '240203',
  '240204',
  '240301',
  '240401',
  '240403',
  '240601',
  '240801',
  '250201',
  '250301',
  '250302',
  '250401',
  '250407',
  '250409',
  '250501',
  '250601',
  '250602',
  '250603',
  '260101',
  '260201',
  '260301',
  '260305',
  '260401',
  '260402',
  '260403',
  '260801',
  '260802',
  '300401',
  '300402',
  '300403',
  '300901',
  '302301',
  '331001',
  '340101',
  '360401',
  '380001',
  '380002',
  '380201',
  '380301',
  '535501',
  '535502',
  '535503',
  '535504',
  'L01901',
  'l24501',
] as const;

describe('port catalogue: identity', () => {
  it('holds the 81 CBP port numbers seen in the captures', () => {
    expect(new Set(CBP_IDS_SEEN).size).toBe(81);
    const missing = CBP_IDS_SEEN.filter((id) => getPort(id) === undefined);
    expect(missing).toEqual([]);
  });

  it('adds only Gordie Howe (380102) and the CBSA-only North Portal to them', () => {
    const seen = new Set<string>(CBP_IDS_SEEN);
    const added = PORTS.filter((port) => !seen.has(port.id)).map((port) => port.id);
    expect(added.sort()).toEqual(['380102', 'cbsa-north-portal']);
  });

  it('has unique ids', () => {
    expect(new Set(PORTS.map((port) => port.id)).size).toBe(PORTS.length);
  });

  it('keeps port numbers case-sensitive (l24501 and L01901 are not l01901 or L24501)', () => {
    expect(getPort('l24501')?.city).toBe('Fort Hancock');
    expect(getPort('L01901')?.city).toBe('Madawaska');
    expect(getPort('L24501')).toBeUndefined();
    expect(getPort('l01901')).toBeUndefined();
  });

  it('gives every port a kebab-case slug, unique, and never equal to any id', () => {
    const ids = new Set(PORTS.map((port) => port.id.toLowerCase()));
    for (const port of PORTS) {
      expect(port.slug, port.id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(ids.has(port.slug), port.slug).toBe(false);
    }
    expect(new Set(PORTS.map((port) => port.slug)).size).toBe(PORTS.length);
  });

  it.each([
    ['250401', 'san-ysidro'],
    ['300401', 'blaine-pacific-highway'],
    ['011501', 'calais-ferry-point'],
    ['l24501', 'fort-hancock'],
    ['cbsa-north-portal', 'north-portal'],
  ])('gives %s the slug %s', (id, slug) => {
    expect(getPort(id)?.slug).toBe(slug);
  });

  it.each([
    ['san-ysidro', '250401'],
    ['250401', '250401'],
    ['madawaska-l01901', 'L01901'],
    ['north-portal', 'cbsa-north-portal'],
  ])('finds %s by id or slug as %s', (idOrSlug, id) => {
    expect(matchPort(PORTS, idOrSlug)?.id).toBe(id);
  });

  it('finds nothing for an unknown id or slug', () => {
    expect(matchPort(PORTS, 'nowhere')).toBeUndefined();
  });
});

describe('port catalogue: fields', () => {
  it('uses only time zones that Intl knows', () => {
    for (const port of PORTS) {
      expect(() => new Intl.DateTimeFormat('en-US', { timeZone: port.timeZone }), port.id).not.toThrow();
    }
  });

  it.each([
    ['240201', 'America/Denver'],
    ['240203', 'America/Denver'],
    ['240401', 'America/Denver'],
    ['240403', 'America/Denver'],
    ['l24501', 'America/Denver'],
    ['240601', 'America/Denver'],
    ['240801', 'America/Denver'],
    ['202401', 'America/Denver'],
    // Presidio County keeps Central time; every capture labels Presidio CDT/CST.
    ['240301', 'America/Chicago'],
    ['230401', 'America/Chicago'],
    ['535501', 'America/Chicago'],
    ['260101', 'America/Phoenix'],
    ['300401', 'America/Los_Angeles'],
    ['331001', 'America/Denver'],
    ['340101', 'America/Chicago'],
    ['360401', 'America/Chicago'],
    ['380001', 'America/Detroit'],
    ['380102', 'America/Detroit'],
    ['090101', 'America/New_York'],
    ['cbsa-north-portal', 'America/Regina'],
  ])('places %s in %s', (id, zone) => {
    expect(getPort(id)?.timeZone).toBe(zone);
  });

  it('places every Arizona port (26xxxx) in America/Phoenix', () => {
    const arizona = PORTS.filter((port) => port.id.startsWith('26'));
    expect(arizona.length).toBeGreaterThan(0);
    for (const port of arizona) expect(port.timeZone, port.id).toBe('America/Phoenix');
  });

  it('places every port of a single-zone state in that zone', () => {
    const zoneOfState: Record<string, string> = {
      ME: 'America/New_York',
      VT: 'America/New_York',
      NY: 'America/New_York',
      MI: 'America/Detroit',
      MN: 'America/Chicago',
      MT: 'America/Denver',
      WA: 'America/Los_Angeles',
      CA: 'America/Los_Angeles',
      AZ: 'America/Phoenix',
      NM: 'America/Denver',
    };
    for (const port of PORTS) {
      const zone = zoneOfState[port.state];
      if (zone) expect(port.timeZone, port.id).toBe(zone);
    }
  });

  it('gives every port a border, a two-letter state and a US city', () => {
    for (const port of PORTS) {
      expect(['mx', 'ca'], port.id).toContain(port.border);
      expect(port.state, port.id).toMatch(/^[A-Z]{2}$/);
      expect(port.city.length, port.id).toBeGreaterThan(0);
      if (port.twinRegion !== null) expect(port.twinRegion, port.id).toMatch(/^[A-Z]{2,3}$/);
    }
  });

  it('splits the ports between the two borders', () => {
    const mx = portsByBorder('mx');
    const ca = portsByBorder('ca');
    expect(mx.length + ca.length).toBe(PORTS.length);
    expect(mx.every((port) => port.border === 'mx')).toBe(true);
    expect(ca.map((port) => port.id)).toContain('cbsa-north-portal');
    expect(mx.map((port) => port.id)).toContain('250401');
  });

  it('keeps hours in the form CBP publishes them, or null', () => {
    const hour = String.raw`\d{1,2} (?:am|pm)`;
    const form = new RegExp(`^(?:24 hrs/day|${hour}-(?:${hour}|Midnight|Noon))$`);
    for (const port of PORTS) {
      if (port.hours !== null) expect(port.hours, port.id).toMatch(form);
    }
    expect(getPort('011502')?.hours).toBe('8 am-4 pm');
    expect(getPort('535502')?.hours).toBe('6 am-Midnight');
  });

  it('lists into-us for every CBP port and into-canada exactly where a CBSA office maps', () => {
    for (const port of PORTS) {
      for (const direction of port.directions) expect(DIRECTIONS).toContain(direction);
      const cbp = !port.id.startsWith('cbsa-');
      expect(port.directions.includes('into-us'), port.id).toBe(cbp);
      expect(port.directions.includes('into-canada'), port.id).toBe(port.cbsaOffices.length > 0);
      if (port.border === 'mx') expect(port.cbsaOffices, port.id).toEqual([]);
    }
  });

  it('maps each CBSA office spelling to one port only', () => {
    const portsByOffice = new Map<string, Set<string>>();
    for (const port of PORTS) {
      for (const office of port.cbsaOffices) {
        const key = slugify(office).replaceAll('-', '');
        portsByOffice.set(key, (portsByOffice.get(key) ?? new Set()).add(port.id));
      }
    }
    const shared = [...portsByOffice].filter(([, ids]) => ids.size > 1).map(([office]) => office);
    expect(shared).toEqual([]);
  });

  it('keeps locations, where given, on the land borders', () => {
    for (const port of PORTS) {
      if (port.location === null) continue;
      const { lat, lon } = port.location;
      if (port.border === 'ca') expect(lat, port.id).toBeGreaterThan(42);
      else expect(lat, port.id).toBeLessThan(33);
      expect(lon, port.id).toBeGreaterThan(-125);
      expect(lon, port.id).toBeLessThan(-66);
    }
  });

  it('carries the bwtId of the crossings list, prefix plus port number', () => {
    for (const port of PORTS) {
      if (port.bwtId !== null) expect(port.bwtId, port.id).toBe(`${port.bwtId.slice(0, 2)}${port.id}`);
    }
    expect(getPort('l24501')?.bwtId).toBe('06l24501');
  });
});

describe('North Portal', () => {
  it('is a port of its own, Canada-bound only, on Saskatchewan time', () => {
    const port = getPort('cbsa-north-portal');
    expect(port).toMatchObject({
      slug: 'north-portal',
      border: 'ca',
      state: 'ND',
      city: 'Portal',
      twinCity: 'North Portal',
      twinRegion: 'SK',
      timeZone: 'America/Regina',
      directions: ['into-canada'],
      cbsaOffices: ['North Portal'],
      bwtId: null,
    });
  });
});

describe('findPortByCbsaOffice', () => {
  // feeds.md 5.1, plus the 2012/2026 CSV, 2026 HTML and French spellings.
  it.each([
    ['St. Stephen', 'St. Stephen, NB/Calais, ME', '011501'],
    ['St. Stephen 3rd Bridge', 'St. Stephen, NB/Calais, ME', '011503'],
    ['St.Stephen 3rd Bridge', 'St.Stephen, NB/Calais, ME', '011503'],
    ['Edmundston', 'Edmundston, NB/Madawaska, ME', '010901'],
    ['Woodstock Road', 'Belleville, NB/Houlton, ME', '010601'],
    ['Stanstead', 'Stanstead, QC/Derby Line, VT', '020901'],
    ['St-Armand/Philipsburg', 'St. Armand, QC/Highgate Springs, VT', '021201'],
    ['St-Bernard-de-Lacolle', 'Lacolle, QC/Champlain, NY', '071201'],
    ['St-Bernard-de-Lacolle', 'Saint-Bernard-de-Lacolle, QC/Champlain, NY', '071201'],
    ['Cornwall', 'Cornwall, ON/Rooseveltown, NY', '070401'],
    ['Prescott', 'Prescott, ON/Ogdensburg, NY', '070101'],
    ['Thousand Islands Bridge', 'Lansdowne, ON/Alexandria Bay, NY', '070801'],
    ['Pont des Mille-Îles', 'Lansdowne, ON/Alexandria Bay, NY', '070801'],
    ['Sault Ste. Marie', 'Sault Ste. Marie, ON/Sault Ste. Marie, MI', '380301'],
    ['Fort Frances Bridge', 'Fort Frances, ON/International Falls, MN', '360401'],
    ['Queenston-Lewiston Bridge', 'Queenston, ON/Lewiston, NY', '090104'],
    [
      'Queenston Lewiston Bridge (Travellers and Commercial)',
      'Niagara-on-the-Lake, ON/Lewiston, NY',
      '090104',
    ],
    ['Rainbow Bridge', 'Niagara Falls, ON/Niagara Falls, NY', '090102'],
    ['Niagara Falls Rainbow Bridge(Travellers only)', 'Niagara Falls, ON/Niagara Falls, NY', '090102'],
    ['Peace Bridge', 'Fort Erie, ON/Buffalo, NY', '090101'],
    ['Fort Erie (Peace Bridge)', 'Fort Erie, ON/Buffalo, NY', '090101'],
    ['Pont Peace', 'Fort Erie, ON/Buffalo, NY', '090101'],
    ['Blue Water Bridge', 'Sarnia, ON/Port Huron, MI', '380201'],
    ['Blue Water Bridge', 'Point Edward, ON/Port Huron, MI', '380201'],
    ['Windsor and Detroit Tunnel', 'Windsor, ON/Detroit, MI', '380002'],
    ['Ambassador Bridge', 'Windsor, ON/Detroit, MI', '380001'],
    ['Gordie Howe International Bridge', 'Windsor, ON/Detroit, MI', '380102'],
    ['Emerson', 'Emerson, MB/Pembina, ND', '340101'],
    ['North Portal', 'North Portal, SK/Portal, ND', 'cbsa-north-portal'],
    ['Coutts', 'Coutts, AB/Sweet Grass, MT', '331001'],
    ['Abbotsford-Huntingdon', 'Abbotsford, BC/Sumas, WA', '300901'],
    ['Aldergrove', 'Aldergrove, BC/Lynden, WA', '302301'],
    ['Pacific Highway', 'Surrey, BC/Blaine, WA', '300401'],
    ['Douglas (Peace Arch)', 'Surrey, BC/Blaine, WA', '300402'],
    ['Boundary Bay', 'Delta, BC/Point Roberts, WA', '300403'],
  ])('maps %s at %s to %s', (office, location, id) => {
    expect(findPortByCbsaOffice(office, location)?.id).toBe(id);
  });

  it.each([
    ['an unknown office in Detroit, which has three crossings', 'Detroit Ferry', 'Windsor, ON/Detroit, MI'],
    ['an unknown office in Blaine, which has two crossings', 'Blaine Truck Route', 'Surrey, BC/Blaine, WA'],
    ['an unknown office in Calais, which has three crossings', 'Milltown', 'St. Stephen, NB/Calais, ME'],
    ['a known office placed in another city of several ports', 'Ambassador Bridge', 'Surrey, BC/Blaine, WA'],
    ['a known office in another state', 'Peace Bridge', 'Somewhere, ON/Nowhere, MI'],
    ['a location without a US side', 'Peace Bridge', 'Fort Erie, ON'],
    ['a Mexican-border city', 'Laredo', 'Windsor, ON/Laredo, TX'],
  ])('maps nothing for %s', (_case, office, location) => {
    expect(findPortByCbsaOffice(office, location)).toBeUndefined();
  });

  it('maps a renamed office by its US city when that city has a single port', () => {
    expect(findPortByCbsaOffice('Huntingdon', 'Abbotsford, BC/Sumas, WA')?.id).toBe('300901');
  });

  it('maps a known office whose US city is spelled anew, within the same state', () => {
    expect(findPortByCbsaOffice('Peace Bridge', 'Fort Erie, ON/Buffalo-Niagara, NY')?.id).toBe('090101');
  });

  it('ignores case, accents and spacing in office names and cities', () => {
    expect(findPortByCbsaOffice('PONT DES MILLE-ILES', 'lansdowne, on/ALEXANDRIA BAY, ny')?.id).toBe(
      '070801',
    );
    expect(findPortByCbsaOffice('ambassador  bridge', 'Windsor, ON / Detroit , MI')?.id).toBe('380001');
  });
});

describe.skipIf(!haveCaptures)('port catalogue against the captures (shared/fixtures/feeds)', () => {
  const cbpFiles = haveCaptures ? readdirSync(capturesDir).filter((name) => name.startsWith('cbp-')) : [];

  it.each(cbpFiles)('holds every port number of %s', (name) => {
    const text = readCapture(name);
    const ids = new Set<string>();
    for (const match of text.matchAll(/<port_number>([^<]+)<\/port_number>/g)) ids.add(match[1] ?? '');
    for (const match of text.matchAll(/"port_number"\s*:\s*"([^"]+)"/g)) ids.add(match[1] ?? '');
    for (const match of text.matchAll(/"bwtId"\s*:\s*"([^"]+)"/g)) ids.add((match[1] ?? '').slice(2));
    // The RSS feed names its items `<port> - <crossing>` instead of giving port numbers.
    const titles = [...text.matchAll(/<item>\s*<title>([^<]+)<\/title>/g)].map((match) =>
      (match[1] ?? '').replaceAll('&amp;', '&'),
    );
    const catalogued = new Set(PORTS.map((port) => `${port.name} - ${port.crossing}`));
    expect(ids.size + titles.length).toBeGreaterThan(0);
    expect([...ids].filter((id) => getPort(id) === undefined)).toEqual([]);
    expect(titles.filter((title) => !catalogued.has(title))).toEqual([]);
  });

  it('holds every port number of the derived catalogue CSV', () => {
    const lines = readCapture('derived__cbp-port-catalogue-from-captures.csv').trim().split('\n').slice(1);
    const ids = lines.map((line) => line.split(',')[0] ?? '');
    expect(ids).toHaveLength(81);
    expect([...ids].sort()).toEqual([...CBP_IDS_SEEN].sort());
  });

  const htmlFiles = haveCaptures
    ? readdirSync(capturesDir).filter((name) => name.startsWith('cbsa-bwt-html'))
    : [];

  it.each(htmlFiles)('maps every office of %s to a catalogued port', (name) => {
    const rows = [...readCapture(name).matchAll(/<b>([^<]+)<\/b>\s*<br\s*\/>\s*([^<]+?)\s*<br\s*\/>/g)];
    expect(rows.length).toBeGreaterThanOrEqual(25);
    const unmapped = rows
      .filter(([, office = '', location = '']) => findPortByCbsaOffice(office, location) === undefined)
      .map(([, office]) => office);
    expect(unmapped).toEqual([]);
  });

  it('gives every catalogued CBSA office of the 2022 page its own port', () => {
    const rows = [
      ...readCapture('cbsa-bwt-html-menu-eng__WSDOT-GIS-border-crossings__2022-07-07.html').matchAll(
        /<b>([^<]+)<\/b>\s*<br\s*\/>\s*([^<]+?)\s*<br\s*\/>/g,
      ),
    ];
    const ids = rows.map(([, office = '', location = '']) => findPortByCbsaOffice(office, location)?.id);
    expect(new Set(ids).size).toBe(rows.length);
  });
});
