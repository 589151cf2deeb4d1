/**
 * The map's base layer, drawn once at build time: Natural Earth 1:50m country outlines (public
 * domain, shipped by the `world-atlas` package) projected with d3-geo into plain SVG path data, so
 * the page needs no tile server, no network and no map script. Points closer than a few pixels are
 * dropped and coordinates are relative integers, which keeps the outlines near 10 kB.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type GeoPermissibleObjects, type GeoProjection, geoConicConformal, geoPath } from 'd3-geo';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';

export const MAP_WIDTH = 800;
export const MAP_HEIGHT = 440;
/** Pixels under which a vertex is dropped. */
const MIN_STEP = 3;
/** ISO 3166-1 numeric codes of the three countries. */
const COUNTRIES = { us: '840', ca: '124', mx: '484' } as const;

function pathContext() {
  let d = '';
  let lastX = 0;
  let lastY = 0;
  return {
    moveTo(x: number, y: number) {
      lastX = Math.round(x);
      lastY = Math.round(y);
      d += `M${lastX} ${lastY}`;
    },
    lineTo(x: number, y: number) {
      const rx = Math.round(x);
      const ry = Math.round(y);
      if (Math.hypot(rx - lastX, ry - lastY) < MIN_STEP) return;
      d += `l${rx - lastX} ${ry - lastY}`;
      lastX = rx;
      lastY = ry;
    },
    closePath() {
      d += 'z';
    },
    arc() {},
    result: () => d,
  };
}

function draw(projection: GeoProjection, object: GeoPermissibleObjects): string {
  const context = pathContext();
  geoPath(projection, context)(object);
  return context.result();
}

export interface BaseMap {
  countries: { id: keyof typeof COUNTRIES; d: string }[];
  /** The US borders with Canada and Mexico, as one line. */
  borders: string;
  /** Projects a longitude and latitude to map pixels (rounded to 0.1 px), or null off the map. */
  project: (lon: number, lat: number) => [number, number] | null;
}

export function baseMap(): BaseMap {
  const require = createRequire(import.meta.url);
  const topology = JSON.parse(
    readFileSync(require.resolve('world-atlas/countries-50m.json'), 'utf8'),
  ) as Topology<{ countries: GeometryCollection }>;
  // A conformal conic centred on the lower 48, fitted to the border regions (Blaine to Calais,
  // San Diego to Brownsville).
  const projection = geoConicConformal().parallels([30, 45]).rotate([96, 0]);
  projection.fitExtent(
    [
      [6, 6],
      [MAP_WIDTH - 6, MAP_HEIGHT - 6],
    ],
    {
      type: 'MultiPoint',
      coordinates: [
        [-125.2, 50.3],
        [-66.5, 47.8],
        [-117.8, 31.8],
        [-97, 24.9],
        [-82, 45.5],
      ],
    },
  );
  projection.clipExtent([
    [0, 0],
    [MAP_WIDTH, MAP_HEIGHT],
  ]);
  const geometries = topology.objects.countries.geometries;
  const countries = (Object.keys(COUNTRIES) as (keyof typeof COUNTRIES)[]).map((id) => {
    const geometry = geometries.find((g) => g.id === COUNTRIES[id]);
    if (!geometry) throw new Error(`world-atlas has no country ${COUNTRIES[id]}`);
    return { id, d: draw(projection, feature(topology, geometry)) };
  });
  const borders = draw(
    projection,
    mesh(
      topology,
      topology.objects.countries,
      (a, b) => a !== b && (a.id === COUNTRIES.us || b.id === COUNTRIES.us),
    ),
  );
  return {
    countries,
    borders,
    project(lon, lat) {
      const point = projection([lon, lat]);
      if (!point) return null;
      const [x, y] = point;
      if (x < 0 || y < 0 || x > MAP_WIDTH || y > MAP_HEIGHT) return null;
      return [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
    },
  };
}
