/**
 * How a port is named to people, kept apart from the catalogue's data so the site's scripts can
 * use it without carrying the catalogue.
 */

/**
 * A port as people name it: its city, and its crossing where that says more (`Blaine (Peace Arch)`,
 * `Blaine (Point Roberts)`: CBP names several crossings after one city). `crossing` may be given
 * in another language (the French pages name CBSA's offices in French).
 */
export function placeName(port: { name: string; crossing: string | null }): string {
  return port.crossing && port.crossing !== port.name ? `${port.name} (${port.crossing})` : port.name;
}
