/**
 * Clocks for the feed simulator: simulated time that runs faster than real time, so a demo or a
 * test sees days of documents in seconds.
 */

/** What the simulator reads the time from (epoch ms). */
export interface SimulatorClock {
  now(): number;
}

/** Options of {@link createFastClock}. */
export interface FastClockOptions {
  /** Simulated time at creation (epoch ms). */
  startMs: number;
  /** How many times faster than real time the simulated time runs (1 = real time). */
  speed: number;
  /** The real clock (default `Date.now`); tests hand in their own. */
  realNow?: () => number;
}

/**
 * A clock that starts at `startMs` and runs `speed` times faster than real time: at speed 3600,
 * one real second is one simulated hour.
 * @throws RangeError when `speed` is not a positive finite number.
 */
export function createFastClock(options: FastClockOptions): SimulatorClock {
  if (!Number.isFinite(options.speed) || options.speed <= 0) {
    throw new RangeError(`speed must be a positive number, got ${options.speed}`);
  }
  const realNow = options.realNow ?? Date.now;
  const realStart = realNow();
  return { now: () => Math.floor(options.startMs + (realNow() - realStart) * options.speed) };
}
