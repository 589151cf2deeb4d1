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
  integrations: [offline()],
});
