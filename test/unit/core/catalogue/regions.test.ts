import { describe, expect, it } from 'vitest';
import { PORTS } from '../../../../functions/core/catalogue/catalogue.ts';
import { REGIONS, regionOf } from '../../../../functions/core/catalogue/regions.ts';

const byId = (id: string) => {
  const port = PORTS.find((p) => p.id === id);
  if (!port) throw new Error(`no port ${id}`);
  return regionOf(port);
};

describe('regions', () => {
  it.each([
    ['250401', 'san-diego-tijuana'],
    ['250601', 'san-diego-tijuana'],
    ['250301', 'imperial-mexicali'],
    ['260401', 'arizona-sonora'],
    ['240201', 'el-paso-juarez'],
    ['240801', 'el-paso-juarez'],
    ['230401', 'laredo'],
    ['230404', 'laredo'],
    ['230301', 'big-bend-coahuila'],
    ['535501', 'rio-grande-valley'],
    ['300402', 'cascadia'],
    ['380001', 'michigan-ontario'],
    ['090101', 'niagara'],
    ['071201', 'st-lawrence-champlain'],
    ['011501', 'maine-new-brunswick'],
    ['340101', 'prairies'],
  ])('puts %s in %s', (id, region) => {
    expect(byId(id)).toBe(region);
  });

  it('puts every catalogued port in a region, and every region has a port on one border only', () => {
    const borders = new Map<string, Set<string>>();
    for (const port of PORTS) {
      const region = regionOf(port);
      expect(REGIONS).toContain(region);
      borders.set(region, (borders.get(region) ?? new Set()).add(port.border));
    }
    expect([...borders.keys()].sort()).toEqual([...REGIONS].sort());
    for (const [region, set] of borders) expect([region, set.size]).toEqual([region, 1]);
  });

  it('places a port outside the catalogue by its state and border', () => {
    expect(regionOf({ border: 'ca', state: 'AK', city: 'Alcan' })).toBe('prairies');
    expect(regionOf({ border: 'mx', state: 'TX', city: 'Nuevo Puente' })).toBe('rio-grande-valley');
  });
});
