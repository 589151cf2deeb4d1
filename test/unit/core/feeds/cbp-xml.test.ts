import { describe, expect, it } from 'vitest';
import { FeedFormatError } from '../../../../functions/core/errors.ts';
import { decodeXml, parseCbpXml } from '../../../../functions/core/feeds/cbp-xml.ts';
import {
  at,
  BWT_XML_GENERATED_AT,
  bwtXml,
  lanesPerPort,
  ownFixture,
  portXml,
  readingOf,
  rejectOf,
} from './cbp-fixtures.ts';

// test/fixtures/cbp/bwt-quirks.xml: written from feeds.md section 1, one port per quirk.
const feed = parseCbpXml(ownFixture('bwt-quirks.xml'), { fetchedAt: at('2023-11-10T06:55:05Z') });
const port = (id: string) => feed.ports.find((p) => p.portId === id);

describe('parseCbpXml on the hand-written quirks document', () => {
  it('reads the unpadded Eastern header as generatedAt and number_of_ports as declaredPortCount', () => {
    expect(feed).toMatchObject({ source: 'cbp', format: 'cbp-xml', generatedAt: '2023-11-10T06:55:05Z' });
    expect(feed.declaredPortCount).toBe(12);
    expect(feed.ports).toHaveLength(12);
  });

  it('accounts for the 7 lanes of every port as readings plus rejects', () => {
    const counts = lanesPerPort(feed);
    expect([...counts.keys()].sort()).toEqual(feed.ports.map((p) => p.portId).sort());
    for (const count of counts.values()) expect(count).toBe(7);
    expect(feed.readings.length + feed.rejects.length).toBe(7 * feed.ports.length);
  });

  it('decodes ISO-8859-1 bytes as declared (a Latin-1 construction notice)', () => {
    expect(port('070801')?.notice).toBe(
      'Café at the duty-free closed; détour via Route 12.\n\nSee https://bwt.cbp.gov for updates.',
    );
  });

  it('keeps port numbers as strings: 070801 with its zero, l24501 and L01901 as written (quirk 1)', () => {
    expect(feed.ports.map((p) => p.portId)).toEqual(
      expect.arrayContaining(['070801', 'l24501', 'L01901', '020901']),
    );
    expect(readingOf(feed, 'l24501', 'passenger', 'standard')?.delayMinutes).toBe(1);
  });

  it('reads lane children by name whatever their order, and ports without automation elements (quirk 2)', () => {
    // Status-first lanes (N/A) and data-first lanes sit side by side; 020901 has no *_automation_type.
    expect(readingOf(feed, '070801', 'commercial', 'fast')?.status).toBe('not-applicable');
    expect(readingOf(feed, '020901', 'passenger', 'standard')).toMatchObject({
      status: 'open',
      delayMinutes: 0,
    });
  });

  it('treats empty elements as no value and N/A maximum_lanes as null (quirk 3)', () => {
    expect(readingOf(feed, '070801', 'pedestrian', 'standard')).toMatchObject({
      status: 'not-applicable',
      maxLanes: null,
      delayMinutes: null,
      lanesOpen: null,
      observedAt: null,
    });
    expect(readingOf(feed, '070801', 'commercial', 'standard')?.maxLanes).toBe(5);
  });

  it('collapses runs of spaces in names and crossings; an empty crossing is null', () => {
    expect(port('380301')?.crossing).toBe('International Bridge SSM');
    expect(port('999901')?.crossing).toBe('Test Bridge');
    expect(port('250401')?.crossing).toBeNull();
    expect(port('l24501')?.name).toBe('FT HANCOCK');
  });

  it('trims the construction notice and makes an empty one null', () => {
    expect(port('090101')?.notice).toBeNull();
    expect(port('020901')?.notice).toBeNull();
  });

  it('names the trusted-traveller lane sentri on the Mexican border and nexus on the Canadian', () => {
    expect(readingOf(feed, '230501', 'passenger', 'sentri')?.delayMinutes).toBe(5);
    expect(readingOf(feed, '090101', 'passenger', 'nexus')?.delayMinutes).toBe(1);
    expect(feed.readings.filter((r) => r.portId === '230501').map((r) => r.lane)).not.toContain('nexus');
  });

  it('maps FAST_lanes to fast and ready_lanes to ready, direction into-us, source cbp', () => {
    expect(readingOf(feed, '090101', 'commercial', 'fast')).toMatchObject({
      direction: 'into-us',
      source: 'cbp',
    });
    expect(readingOf(feed, '250401', 'passenger', 'ready')?.delayMinutes).toBe(60);
  });

  it('keeps "no delay" with 5 minutes as 5, never as 0', () => {
    expect(readingOf(feed, '070801', 'passenger', 'standard')).toMatchObject({
      status: 'open',
      delayMinutes: 5,
    });
  });

  it.each([
    ['passenger', 'standard', '1 hrs 35 min', 95],
    ['passenger', 'sentri', '10 min', 10],
    ['passenger', 'ready', '1 hr', 60],
  ])('reads the 2014 text delay of San Ysidro %s %s (%j) as %d minutes', (mode, lane, _text, minutes) => {
    expect(readingOf(feed, '250401', mode, lane)?.delayMinutes).toBe(minutes);
  });

  it.each([
    ['070801', 'commercial', 'standard', '2023-11-10T06:00:00Z', 'At 1:00 am EST on 11/10'],
    ['230501', 'passenger', 'standard', '2023-11-10T06:00:00Z', 'At Midnight CST opens 11/10'],
    [
      '020901',
      'passenger',
      'standard',
      '2023-11-09T12:00:00Z',
      'Derby Line At 7:00 am EST rolls back to 11/9',
    ],
    [
      '090101',
      'passenger',
      'standard',
      '2023-11-10T07:01:00Z',
      'an automated site 6 minutes ahead of the header',
    ],
    ['250401', 'passenger', 'standard', '2023-11-10T06:00:00Z', 'San Ysidro At 10:00 pm PST on 11/9'],
    [
      '260101',
      'passenger',
      'standard',
      '2023-11-10T06:00:00Z',
      'Douglas At 11:00 pm PST is Arizona time (UTC-7)',
    ],
    ['l24501', 'passenger', 'standard', '2023-11-10T05:00:00Z', 'Fort Hancock At 10:00 pm MST on 11/9'],
  ])('resolves observedAt of %s %s %s to %s (%s)', (id, mode, lane, iso) => {
    expect(readingOf(feed, id, mode, lane)?.observedAt).toBe(iso);
  });

  it('gives Update Pending, Lanes Closed and N/A lanes no numbers and no observedAt, never 0', () => {
    const withoutData = feed.readings.filter((r) =>
      ['update-pending', 'lanes-closed', 'not-applicable'].includes(r.status),
    );
    expect(withoutData.map((r) => r.status)).toEqual(
      expect.arrayContaining(['update-pending', 'lanes-closed', 'not-applicable']),
    );
    for (const reading of withoutData) {
      expect(reading).toMatchObject({ delayMinutes: null, lanesOpen: null, observedAt: null });
    }
    expect(readingOf(feed, '380301', 'passenger', 'standard')?.status).toBe('update-pending');
  });

  it('overrides every lane of a closed port with port-closed, dropping the stale readings (quirk 9)', () => {
    const lanes = feed.readings.filter((r) => r.portId === '240801');
    expect(port('240801')?.portStatus).toBe('closed');
    expect(lanes).toHaveLength(7);
    for (const reading of lanes) {
      expect(reading).toMatchObject({
        status: 'port-closed',
        delayMinutes: null,
        lanesOpen: null,
        observedAt: null,
      });
    }
  });

  it.each([
    ['commercial', 'standard', 'unknown-status', /"Temporarily closed"/],
    ['commercial', 'fast', 'bad-delay', /no delay_minutes/],
    ['passenger', 'standard', 'bad-time', /"At 25:00 pm EST"/],
    ['passenger', 'nexus', 'bad-lanes', /"two"/],
    ['pedestrian', 'standard', 'missing-status', /operational_status/],
    ['pedestrian', 'ready', 'missing-lane', /pedestrian_lanes\/ready_lanes/],
  ])('rejects Ogdensburg %s %s as %s, naming the value', (mode, lane, code, reason) => {
    expect(rejectOf(feed, '070101', mode, lane)).toMatchObject({
      direction: 'into-us',
      code,
      reason: expect.stringMatching(reason),
    });
  });

  it('reads a port missing from the catalogue, zone from its abbreviation, flagged uncatalogued', () => {
    expect(port('999901')).toMatchObject({ uncatalogued: true, border: 'ca', name: 'Testville' });
    expect(readingOf(feed, '999901', 'passenger', 'standard')?.observedAt).toBe('2023-11-10T06:00:00Z');
    expect(feed.ports.filter((p) => p.uncatalogued).map((p) => p.portId)).toEqual(['999901']);
  });
});

describe('parseCbpXml on one-off documents', () => {
  const open = (time: string, delay = '5') => ({ status: 'no delay', time, delay, lanes: '1' });

  it('refuses a reading still in the future after the roll-back (future-time), never storing it', () => {
    // The header says 01:55 ET but the fetch happened an hour earlier: 01:50 ET is after the fetch.
    const xml = bwtXml([portXml({ number: '090101', passengerStandard: open('At 1:50 am EST') })]);
    const parsed = parseCbpXml(xml, { fetchedAt: BWT_XML_GENERATED_AT - 3_600_000 });
    expect(rejectOf(parsed, '090101', 'passenger', 'standard')?.code).toBe('future-time');
    expect(readingOf(parsed, '090101', 'passenger', 'standard')).toBeUndefined();
  });

  it('refuses a time whose abbreviation is more than an hour off the port zone (zone-mismatch)', () => {
    const xml = bwtXml([
      portXml({ number: '250401', border: 'Mexican Border', passengerStandard: open('At 1:00 am EST') }),
    ]);
    const parsed = parseCbpXml(xml, { fetchedAt: BWT_XML_GENERATED_AT });
    expect(rejectOf(parsed, '250401', 'passenger', 'standard')?.code).toBe('zone-mismatch');
  });

  it('rejects the lanes of a repeated port element, keeping the first', () => {
    const xml = bwtXml([
      portXml({ number: '070801', passengerStandard: open('At 1:00 am EST', '5') }),
      portXml({ number: '070801', passengerStandard: open('At 1:00 am EST', '50') }),
    ]);
    const parsed = parseCbpXml(xml, { fetchedAt: BWT_XML_GENERATED_AT });
    expect(parsed.ports).toHaveLength(1);
    expect(readingOf(parsed, '070801', 'passenger', 'standard')?.delayMinutes).toBe(5);
    expect(parsed.rejects.filter((r) => r.code === 'duplicate-port')).toHaveLength(7);
  });

  it('rejects the lanes of a port without a usable port_number, and reads the others', () => {
    const xml = bwtXml([
      portXml({ number: '' }),
      portXml({ number: 'not a number' }),
      portXml({ number: '070801' }),
    ]);
    const parsed = parseCbpXml(xml, { fetchedAt: BWT_XML_GENERATED_AT });
    expect(parsed.ports.map((p) => p.portId)).toEqual(['070801']);
    expect(parsed.rejects.filter((r) => r.code === 'bad-port-number' && r.portId === null)).toHaveLength(14);
  });

  it('cannot name the NEXUS/SENTRI lane of an uncatalogued port of unknown border, and rejects it', () => {
    const xml = bwtXml([
      portXml({ number: '999902', border: 'Atlantis', passengerTrusted: open('At 1:00 am EST') }),
    ]);
    const parsed = parseCbpXml(xml, { fetchedAt: BWT_XML_GENERATED_AT });
    expect(parsed.ports[0]).toMatchObject({ border: null, uncatalogued: true });
    expect(rejectOf(parsed, '999902', 'passenger', null)?.code).toBe('unknown-border');
    expect(parsed.readings).toHaveLength(6);
  });

  it('takes the border from the catalogue when the feed gives none', () => {
    const xml = bwtXml([
      portXml({ number: '250401', border: '', passengerTrusted: open('At 10:00 pm PST') }),
    ]);
    const parsed = parseCbpXml(xml.replace('<date>11/10/2023</date>', '<date>11/9/2023</date>'), {
      fetchedAt: BWT_XML_GENERATED_AT,
    });
    expect(readingOf(parsed, '250401', 'passenger', 'sentri')?.delayMinutes).toBe(5);
  });

  it('uses fetchedAt as the reference when the header is unusable, and states no count', () => {
    const xml = bwtXml([portXml({ number: '070801', passengerStandard: open('At 1:00 am EST') })], {
      date: 'yesterday',
      time: '',
    }).replace('<number_of_ports>1</number_of_ports>', '<number_of_ports>N/A</number_of_ports>');
    const parsed = parseCbpXml(xml, { fetchedAt: BWT_XML_GENERATED_AT });
    expect(parsed).toMatchObject({ generatedAt: null, declaredPortCount: null });
    expect(readingOf(parsed, '070801', 'passenger', 'standard')?.observedAt).toBe('2023-11-10T06:00:00Z');
  });

  it('defaults fetchedAt to now', () => {
    const past = bwtXml([portXml({ number: '070801', passengerStandard: open('At 1:00 am EST') })]);
    expect(readingOf(parseCbpXml(past), '070801', 'passenger', 'standard')?.observedAt).toBe(
      '2023-11-10T06:00:00Z',
    );
    const future = bwtXml(
      [portXml({ number: '070801', date: '1/1/2999', passengerStandard: open('At 1:00 am EST') })],
      {
        date: '2999-1-1',
        time: '1:55:5',
      },
    );
    expect(rejectOf(parseCbpXml(future), '070801', 'passenger', 'standard')?.code).toBe('future-time');
  });

  it('reads text input as well as bytes, and decodes UTF-8 when no encoding is declared', () => {
    const xml = bwtXml([portXml({ number: '070801', name: 'Montréal Road' })]);
    const undeclared = xml.replace("<?xml version='1.0' encoding='ISO-8859-1'?>", '');
    expect(parseCbpXml(xml).ports[0]?.name).toBe('Montréal Road');
    expect(parseCbpXml(new TextEncoder().encode(undeclared)).ports[0]?.name).toBe('Montréal Road');
    expect(decodeXml(new TextEncoder().encode(`\uFEFF${undeclared}`)).startsWith('<border_wait_time>')).toBe(
      true,
    );
  });

  it('reads a document with a local flaw (a bare & in a notice), losing nothing else', () => {
    const xml = bwtXml([
      portXml({ number: '535502', border: 'Mexican Border', name: 'Brownsville B&M' }),
      portXml({ number: '070801', passengerStandard: open('At 1:00 am EST') }),
    ]);
    const parsed = parseCbpXml(xml, { fetchedAt: BWT_XML_GENERATED_AT });
    expect(parsed.ports.map((p) => p.name)).toEqual(['Brownsville B&M', 'Test']);
    expect(readingOf(parsed, '070801', 'passenger', 'standard')?.delayMinutes).toBe(5);
  });

  it('decodes character references', () => {
    const xml = bwtXml([portXml({ number: '070801', name: 'Caf&#233; &amp; Bridge' })]);
    expect(parseCbpXml(xml).ports[0]?.name).toBe('Café & Bridge');
  });

  it.each([
    ['an empty document', ''],
    ['plain text', 'Service Unavailable'],
    ['JSON', '[{"port_number":"070801"}]'],
    ['truncated XML', bwtXml([portXml({ number: '070801' })]).slice(0, 400)],
    [
      'XML cut at a tag boundary',
      `${bwtXml([portXml({ number: '070801' }), portXml({ number: '070803' })]).split('</port>')[0]}</port>`,
    ],
    ['an HTML error page', '<html><body><h1>502 Bad Gateway</h1></body></html>'],
    ['a CBP RSS feed', "<?xml version='1.0'?><rss version='2.0'><channel><title>CBP</title></channel></rss>"],
    ['a root with no port', bwtXml([])],
    ['ports without port numbers', bwtXml([portXml({ number: '' })])],
  ])('throws FeedFormatError for %s', (_name, input) => {
    expect(() => parseCbpXml(input)).toThrow(FeedFormatError);
  });
});
