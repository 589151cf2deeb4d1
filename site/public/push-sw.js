// Web Push in the service worker (imported by sw.js, which workbox-build writes: site/offline.mjs).
// A push alert's message is JSON { title, body, url, tag, lang }: shown as a notification; a tap
// opens the port page it names (same origin only), or focuses a window already showing it.
self.addEventListener('push', (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : '' };
  }
  const url =
    typeof message.url === 'string' && message.url.startsWith('/') && !message.url.startsWith('//')
      ? message.url
      : '/';
  event.waitUntil(
    self.registration.showNotification(message.title || 'Border wait times', {
      body: message.body || '',
      tag: message.tag,
      lang: message.lang,
      icon: '/favicon.svg',
      data: { url },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url || '/', self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => client.url === url && 'focus' in client);
      return open ? open.focus() : self.clients.openWindow(url);
    }),
  );
});
