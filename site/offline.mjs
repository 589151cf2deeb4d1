import { fileURLToPath } from 'node:url';
import { generateSW } from 'workbox-build';

/**
 * Astro integration: after each build, workbox-build writes `sw.js`, the service worker that keeps
 * the site usable offline. It precaches the home, map and track-record pages of each language with
 * their scripts, and keeps every other page the visitor opened (network first, the cached copy when
 * the network fails). Data documents are not its business: the pages keep their last good copy
 * themselves (client.ts), so they can say it is offline data and how old it is.
 */
export function offline() {
  return {
    name: 'border-waits-offline',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const { count, size, warnings } = await generateSW({
          globDirectory: fileURLToPath(dir),
          globPatterns: [
            '{,es/,fr/}index.html',
            '{,es/,fr/}map/index.html',
            '{,es/,fr/}forecast-skill/index.html',
            '{,es/,fr/}offline/index.html',
            '{,es/,fr/}manifest.webmanifest',
            '_astro/*.js',
            'favicon.svg',
          ],
          swDest: fileURLToPath(new URL('sw.js', dir)),
          mode: 'production',
          sourcemap: false,
          inlineWorkboxRuntime: true,
          // Web Push alerts: the push and notificationclick handlers (public/push-sw.js).
          importScripts: ['push-sw.js'],
          skipWaiting: true,
          clientsClaim: true,
          cleanupOutdatedCaches: true,
          // Astro's hashed file names already change with their content.
          dontCacheBustURLsMatching: /^_astro\//,
          // Pages are network first; a page never opened, with no network, gets the site's own
          // offline page in its language (listing what is kept), not the browser's error page.
          // Pages are network first; a page never opened, with no network, gets the site's own
          // offline page in its language (listing what is kept), not the browser's error page.
          // (workbox writes each urlPattern into sw.js by its source text: no closures.)
          runtimeCaching: [
            [({ request, url }) => request.mode === 'navigate' && url.pathname.startsWith('/es/'), '/es/'],
            [({ request, url }) => request.mode === 'navigate' && url.pathname.startsWith('/fr/'), '/fr/'],
            [({ request }) => request.mode === 'navigate', '/'],
          ].map(([urlPattern, prefix]) => ({
            urlPattern,
            handler: 'NetworkFirst',
            options: {
              cacheName: 'border-waits-pages',
              expiration: { maxEntries: 60 },
              cacheableResponse: { statuses: [200] },
              precacheFallback: { fallbackURL: `${prefix}offline/index.html` },
            },
          })),
        });
        for (const warning of warnings) logger.warn(warning);
        logger.info(`sw.js: ${count} files precached (${size} bytes)`);
      },
    },
  };
}
