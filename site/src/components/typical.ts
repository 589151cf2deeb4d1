/**
 * The typical week of a port's lanes: our own hourly averages where they exist, else CBP's
 * published typical waits (`/api/v1/port-typical-waits`), always labelled as CBP's. Each
 * value is port-local (day of week 0 = Sunday, hour 0-23).
 */
import { getJson } from './client';

export interface TypicalHour {
  direction: string;
  mode: string;
  lane: string;
  dayOfWeek: number;
  hour: number;
  minutes: number;
  /** Our averages: how many readings, and their median. */
  samples?: number;
  median?: number | null;
  /** CBP's: the range it publishes. */
  min?: number | null;
  max?: number | null;
}

export interface TypicalWeek {
  source: 'ours' | 'cbp' | null;
  hours: TypicalHour[];
}

type Loose = Record<string, unknown>;
const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

export async function typicalWeek(portId: string): Promise<TypicalWeek> {
  const q = encodeURIComponent(portId);
  try {
    const { body } = await getJson<unknown>(`/api/v1/port-hourly-averages?port_id=${q}`, { keep: true });
    const ours = (Array.isArray(body) ? (body as Loose[]) : []).flatMap((a): TypicalHour[] => {
      const minutes = num(a.averageDelayMinutes);
      return minutes === null
        ? []
        : [
            {
              direction: String(a.direction),
              mode: String(a.mode),
              lane: String(a.lane),
              dayOfWeek: Number(a.dayOfWeek),
              hour: Number(a.hour),
              minutes,
              samples: num(a.samples) ?? 0,
              median: num(a.medianDelayMinutes),
            },
          ];
    });
    if (ours.length > 0) return { source: 'ours', hours: ours };
  } catch {
    // No averages document: CBP's typical waits may still answer.
  }
  try {
    const { body } = await getJson<{ typical?: Loose[] }>(`/api/v1/port-typical-waits?port_id=${q}`, {
      keep: true,
    });
    const cbp = (Array.isArray(body?.typical) ? body.typical : []).flatMap((a): TypicalHour[] => {
      const minutes = num(a.averageMinutes);
      return minutes === null
        ? []
        : [
            {
              direction: String(a.direction),
              mode: String(a.mode),
              lane: String(a.lane),
              dayOfWeek: Number(a.dayOfWeek),
              hour: Number(a.hour),
              minutes,
              min: num(a.minMinutes),
              max: num(a.maxMinutes),
            },
          ];
    });
    if (cbp.length > 0) return { source: 'cbp', hours: cbp };
  } catch {
    // Neither exists yet.
  }
  return { source: null, hours: [] };
}
