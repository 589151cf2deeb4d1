/**
 * The port catalogue: every CBP port seen in the feeds and every CBSA office, with zones,
 * slugs and the CBSA office mapping. (Data is filled in by the catalogue data module.)
 */
import type { Port } from './model.ts';

export const PORTS: readonly Port[] = [];

const byId = new Map(PORTS.map((port) => [port.id, port]));
const bySlug = new Map(PORTS.map((port) => [port.slug, port]));

/** The catalogue entry of a CBP port number (case-sensitive: `l24501` and `L01901` differ). */
export function getPort(id: string): Port | undefined {
  return byId.get(id);
}

/** A port by id or slug, as `port_id` accepts both. */
export function findPort(idOrSlug: string): Port | undefined {
  return byId.get(idOrSlug) ?? bySlug.get(idOrSlug);
}
