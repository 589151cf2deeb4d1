import { type Lang, localePath, STRINGS } from '../i18n';

const SHORT_NAMES: Record<Lang, string> = { en: 'Border waits', es: 'Esperas', fr: 'Attentes' };

/** The web app manifest of one language: installing from `/fr/` opens the French home page. */
export function manifest(lang: Lang): Response {
  const t = STRINGS[lang];
  const body = {
    name: t.siteName,
    short_name: SHORT_NAMES[lang],
    description: t.home.intro,
    lang,
    start_url: localePath(lang, '/'),
    scope: '/',
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: '#0b4f8a',
    icons: [{ src: '/favicon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
  };
  return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/manifest+json' } });
}
