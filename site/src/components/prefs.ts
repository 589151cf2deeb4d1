/**
 * What the visitor chose, kept in this browser's localStorage only: favourite crossings and the
 * home page's filters. Nothing here is sent anywhere.
 */
const FAVOURITES = 'border-waits:favourites';
const FILTERS = 'border-waits:filters';

export interface Position {
  lat: number;
  lon: number;
}

function read<T>(key: string, fallback: T): T {
  try {
    const text = localStorage.getItem(key);
    return text ? (JSON.parse(text) as T) : fallback;
  } catch {
    // Storage disabled (private mode, a policy) or a damaged value: behave as on a first visit.
    return fallback;
  }
}

function write(key: string, value: unknown): void {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or disabled: the choice lasts for this page only.
  }
}

export function favourites(): string[] {
  const list = read<unknown>(FAVOURITES, []);
  return Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string') : [];
}

export function toggleFavourite(id: string): boolean {
  const list = favourites();
  const on = !list.includes(id);
  write(FAVOURITES, on ? [...list, id] : list.filter((x) => x !== id));
  return on;
}

export function savedFilters(): Record<string, string> {
  const saved = read<unknown>(FILTERS, {});
  return saved && typeof saved === 'object' ? (saved as Record<string, string>) : {};
}

export function saveFilters(filters: Record<string, string>): void {
  write(FILTERS, filters);
}

/** Great-circle distance in kilometres (haversine, mean Earth radius). */
export function distanceKm(a: Position, b: Position): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}
