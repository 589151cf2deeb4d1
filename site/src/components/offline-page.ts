/**
 * The offline page (served by sw.js for a page never opened, when the network is gone): adds the
 * port and plan pages this browser kept to the always-kept ones, each by its own title.
 */
const list = document.getElementById('kept') as HTMLElement;
const lang = list.dataset.lang ?? 'en';
const inLanguage = (path: string) =>
  lang === 'en' ? !/^\/(es|fr)\//.test(path) : path.startsWith(`/${lang}/`);

async function kept(): Promise<void> {
  if (!('caches' in window)) return;
  const cache = await caches.open('border-waits-pages');
  const shown = new Set([...list.querySelectorAll('a')].map((a) => a.getAttribute('href')));
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname;
    if (shown.has(path) || !inLanguage(path) || path.endsWith('/offline/')) continue;
    const response = await cache.match(request);
    const html = response ? await response.text() : '';
    const title = /<title>([^<]*)<\/title>/.exec(html)?.[1]?.split(' · ')[0] ?? path;
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = path;
    a.textContent = new DOMParser().parseFromString(title, 'text/html').documentElement.textContent ?? path;
    li.append(a);
    list.append(li);
    shown.add(path);
  }
}
kept().catch(() => undefined);
