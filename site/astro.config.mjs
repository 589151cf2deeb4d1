import { defineConfig } from 'astro/config';
import { offline } from './offline.mjs';

// Static status site: pages are built from the catalogue; numbers are fetched in the browser
// from the same-origin API so they refresh without a rebuild.
export default defineConfig({
  site: 'https://border-waits.example',
  output: 'static',
  trailingSlash: 'always',
  build: { format: 'directory', inlineStylesheets: 'always' },
  compressHTML: true,
  // Every script an external file, however small (Vite would inline those under 4 kB), so a strict
  // Content-Security-Policy without 'unsafe-inline' needs no hash for them.
  vite: { build: { assetsInlineLimit: 0 } },
  integrations: [offline()],
});
