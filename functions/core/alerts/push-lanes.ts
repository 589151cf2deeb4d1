/**
 * Which lanes a port publishes waits for, by direction and mode: what a push alert may watch.
 * Kept apart (no zod, no node:crypto) because the site's alert form imports it too.
 */
import type { Border, Direction, Lane, Mode } from '../model.ts';

/**
 * Whether a port publishes waits for this direction, mode and lane: CBSA (into Canada) gives
 * travellers and commercial, one lane each; CBP gives standard lanes for every mode, Ready Lane
 * for cars and pedestrians, the trusted-traveller lane as SENTRI on the Mexican border and NEXUS
 * on the Canadian, and FAST for trucks.
 */
export function laneOffered(
  port: { border: Border; directions: readonly Direction[] },
  direction: Direction,
  mode: Mode,
  lane: Lane,
): boolean {
  if (!port.directions.includes(direction)) return false;
  if (direction === 'into-canada') return lane === 'standard' && mode !== 'pedestrian';
  if (lane === 'sentri') return port.border === 'mx' && mode === 'passenger';
  if (lane === 'nexus') return port.border === 'ca' && mode === 'passenger';
  if (lane === 'fast') return mode === 'commercial';
  if (lane === 'ready') return mode !== 'commercial';
  return true;
}
