/**
 * Service events: what the RSS feeds announce. A port closed or reopened, a port's notice
 * changed, a feed went down or came back. Detected by the ingest from the change between the last
 * known state and the new one; each has a stable id (derived from the document that showed it),
 * so recording the same event again after a crash and a rerun keeps one copy.
 */
import { createHash } from 'node:crypto';
import { getPort } from '../catalogue/catalogue.ts';
import { placeName } from '../catalogue/place-name.ts';
import type { EventType, FeedHealth, LatestPortState, PortSnapshot, ServiceEvent, Source } from '../model.ts';

/** How many events the published log keeps (newest first). */
export const MAX_EVENTS = 300;

const SOURCE_NAMES: Readonly<Record<Source, string>> = {
  cbp: 'CBP (into the US)',
  cbsa: 'CBSA (into Canada)',
};

function eventId(...parts: readonly (string | null)[]): string {
  return createHash('sha256').update(parts.join('|')).digest('hex').slice(0, 24);
}

function portLabel(portId: string, name: string): string {
  const port = getPort(portId);
  return port ? placeName(port) : name;
}

/**
 * Events between a source's previous port states and a new document's. A port seen for the first
 * time raises none (the first ingest would otherwise announce every notice).
 * `documentTime` identifies the document (its generation time, else the fetch).
 */
export function portEvents(
  previous: readonly LatestPortState[],
  current: readonly PortSnapshot[],
  documentTime: string,
  at: string,
): ServiceEvent[] {
  const before = new Map(previous.map((state) => [`${state.source}#${state.portId}`, state]));
  const events: ServiceEvent[] = [];
  for (const port of current) {
    const prior = before.get(`${port.source}#${port.portId}`);
    if (!prior) continue;
    const label = portLabel(port.portId, port.name);
    const direction = port.source === 'cbp' ? 'into the US' : 'into Canada';
    const add = (type: EventType, title: string, description: string) =>
      events.push({
        id: eventId(type, port.source, port.portId, documentTime),
        type,
        at,
        source: port.source,
        portId: port.portId,
        title,
        description,
      });
    if (prior.portStatus === 'open' && port.portStatus === 'closed') {
      add('port-closed', `${label} is closed (${direction})`, closedText(port));
    } else if (prior.portStatus === 'closed' && port.portStatus === 'open') {
      add(
        'port-reopened',
        `${label} reopened (${direction})`,
        `${SOURCE_NAMES[port.source]} reports the port open.`,
      );
    }
    const was = normalizeNotice(prior.notice);
    const now = normalizeNotice(port.notice);
    if (was !== now) {
      add(
        'notice-changed',
        `${label}: ${now ? 'new notice' : 'notice removed'} (${direction})`,
        now ?? `The notice "${was}" was removed.`,
      );
    }
  }
  return events;
}

function closedText(port: PortSnapshot): string {
  return port.hours
    ? `${SOURCE_NAMES[port.source]} reports the port closed. Hours: ${port.hours}.`
    : `${SOURCE_NAMES[port.source]} reports the port closed.`;
}

function normalizeNotice(notice: string | null | undefined): string | null {
  const text = notice?.replace(/\s+/g, ' ').trim();
  return text ? text : null;
}

/** An outage when a source fails after a success; a recovery when it succeeds after failing. */
export function feedEvent(previous: FeedHealth | undefined, current: FeedHealth): ServiceEvent | null {
  const wasFailing = (previous?.consecutiveFailures ?? 0) > 0;
  const failing = current.consecutiveFailures > 0;
  const at = current.lastAttemptAt ?? new Date(0).toISOString();
  const name = SOURCE_NAMES[current.source];
  if (failing && !wasFailing && previous?.lastSuccessAt) {
    return {
      id: eventId('feed-outage', current.source, at),
      type: 'feed-outage',
      at,
      source: current.source,
      portId: null,
      title: `${name} feed outage`,
      description: `The ${name} feed failed: ${current.lastError?.message ?? 'unknown error'}. The last good readings stay published, marked by their age.`,
    };
  }
  if (!failing && wasFailing) {
    return {
      id: eventId('feed-recovered', current.source, at),
      type: 'feed-recovered',
      at,
      source: current.source,
      portId: null,
      title: `${name} feed recovered`,
      description: `The ${name} feed answers again after ${previous?.consecutiveFailures ?? 0} failed attempts.`,
    };
  }
  return null;
}

/** The log with `added` merged in: one copy per id, newest first, at most {@link MAX_EVENTS}. */
export function mergeEvents(log: readonly ServiceEvent[], added: readonly ServiceEvent[]): ServiceEvent[] {
  const byId = new Map<string, ServiceEvent>();
  for (const event of [...log, ...added]) if (!byId.has(event.id)) byId.set(event.id, event);
  return [...byId.values()]
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : a.id.localeCompare(b.id)))
    .slice(0, MAX_EVENTS);
}
