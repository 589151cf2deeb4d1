/**
 * Shared by the CBP parser tests: the hand-written fixtures of `test/fixtures/cbp/`, the real
 * captures of `../shared/fixtures/feeds/` (when present), and a builder for one-off XML documents.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ParsedFeed } from '../../../../functions/core/model.ts';

const projectRoot = new URL('../../../../', import.meta.url);

/** The project's own hand-written CBP documents (bytes, as a fetch would hand them over). */
export function ownFixture(name: string): Uint8Array {
  return readFileSync(new URL(`test/fixtures/cbp/${name}`, projectRoot));
}

/** `../shared/fixtures/feeds/` relative to the project root: real captures, never copied in. */
export const sharedFeedsDir = fileURLToPath(new URL('../shared/fixtures/feeds/', projectRoot));
export const sharedFeedsPresent = existsSync(sharedFeedsDir);
export const sharedFeedsMissing = `real captures not found at ${sharedFeedsDir} (a clone without ../shared): skipped`;

/** Epoch ms of an ISO string, failing loudly on a typo. */
export function at(iso: string): number {
  const epochMs = Date.parse(iso);
  if (Number.isNaN(epochMs)) throw new Error(`bad instant ${iso}`);
  return epochMs;
}

/** Readings plus rejects per port id (rejects without a port id under `null`). */
export function lanesPerPort(feed: ParsedFeed): Map<string | null, number> {
  const counts = new Map<string | null, number>();
  for (const item of [...feed.readings, ...feed.rejects])
    counts.set(item.portId, (counts.get(item.portId) ?? 0) + 1);
  return counts;
}

/** The one reading of a port lane, or undefined. */
export function readingOf(feed: ParsedFeed, portId: string, mode: string, lane: string) {
  return feed.readings.find((r) => r.portId === portId && r.mode === mode && r.lane === lane);
}

/** The one reject of a port lane, or undefined. */
export function rejectOf(feed: ParsedFeed, portId: string | null, mode: string, lane: string | null) {
  return feed.rejects.find((r) => r.portId === portId && r.mode === mode && r.lane === lane);
}

/** One CBP lane element's values; omitted fields are empty elements. */
export interface LaneSpec {
  status: string;
  time?: string;
  delay?: string;
  lanes?: string;
}

/** One `<port>` element; every lane defaults to `N/A`. */
export interface PortSpec {
  number: string;
  border?: string;
  name?: string;
  crossing?: string;
  date?: string;
  status?: string;
  passengerStandard?: LaneSpec;
  passengerTrusted?: LaneSpec;
}

function laneXml(element: string, lane: LaneSpec): string {
  return (
    `<${element}><update_time>${lane.time ?? ''}</update_time><operational_status>${lane.status}</operational_status>` +
    `<delay_minutes>${lane.delay ?? ''}</delay_minutes><lanes_open>${lane.lanes ?? ''}</lanes_open></${element}>`
  );
}

/** A `<port>` element in CBP's one-line form. */
export function portXml(spec: PortSpec): string {
  const na = { status: 'N/A' };
  return (
    `<port><port_number>${spec.number}</port_number><border>${spec.border ?? 'Canadian Border'}</border>` +
    `<port_name>${spec.name ?? 'Test'}</port_name><crossing_name>${spec.crossing ?? ''}</crossing_name>` +
    `<hours>24 hrs/day</hours><date>${spec.date ?? '11/10/2023'}</date><port_status>${spec.status ?? 'Open'}</port_status>` +
    `<commercial_vehicle_lanes><maximum_lanes>N/A</maximum_lanes>${laneXml('standard_lanes', na)}${laneXml('FAST_lanes', na)}</commercial_vehicle_lanes>` +
    `<passenger_vehicle_lanes><maximum_lanes>4</maximum_lanes>${laneXml('standard_lanes', spec.passengerStandard ?? na)}` +
    `${laneXml('NEXUS_SENTRI_lanes', spec.passengerTrusted ?? na)}${laneXml('ready_lanes', na)}</passenger_vehicle_lanes>` +
    `<pedestrian_lanes><maximum_lanes>N/A</maximum_lanes>${laneXml('standard_lanes', na)}${laneXml('ready_lanes', na)}</pedestrian_lanes></port>`
  );
}

/** A whole `bwt.xml` generated at 2023-11-10 1:55:05 ET (06:55:05Z) around the given ports. */
export function bwtXml(ports: readonly string[], header = { date: '2023-11-10', time: '1:55:5' }): string {
  return (
    `<?xml version='1.0' encoding='ISO-8859-1'?><border_wait_time><last_updated_date>${header.date}</last_updated_date>` +
    `<last_updated_time>${header.time}</last_updated_time><number_of_ports>${ports.length}</number_of_ports>${ports.join('')}</border_wait_time>`
  );
}

/** The header time of {@link bwtXml}. */
export const BWT_XML_GENERATED_AT = at('2023-11-10T06:55:05Z');
