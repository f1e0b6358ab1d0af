import type { PublishedItem, PublishedMenu, PublishedStore } from '../../src/domain/published-menu.js';

export interface MenuUpdate {
  items: PublishedItem[];
  removed: number[];
  store?: PublishedStore;
  updated_at: string;
}

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'gone';

export interface LiveHandlers {
  snapshot(menu: PublishedMenu): void;
  update(update: MenuUpdate): void;
  state(state: LiveState): void;
}

const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;

/**
 * Follows /m/{slug}/events: the first event is the whole menu, then one event per change. When the
 * connection drops (a network loss, a server restart), it reconnects after a growing delay (1 s
 * doubling to 30 s, with jitter) and resumes from the last event it saw (`last_event_id`), so the
 * server sends what was missed, or the whole menu again when it cannot.
 */
export function followMenu(eventsUrl: string, handlers: LiveHandlers): { close(): void } {
  let source: EventSource | undefined;
  let lastEventId = '';
  let delay = FIRST_DELAY_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const connect = () => {
    const url = new URL(eventsUrl);
    if (lastEventId) url.searchParams.set('last_event_id', lastEventId);
    const current = new EventSource(url);
    source = current;
    const seen = (event: MessageEvent) => {
      if (event.lastEventId) lastEventId = event.lastEventId;
      delay = FIRST_DELAY_MS;
    };
    current.addEventListener('open', () => handlers.state('live'));
    current.addEventListener('snapshot', (event) => {
      seen(event);
      handlers.snapshot(JSON.parse(event.data) as PublishedMenu);
    });
    current.addEventListener('update', (event) => {
      seen(event);
      handlers.update(JSON.parse(event.data) as MenuUpdate);
    });
    current.addEventListener('gone', () => {
      current.close();
      handlers.state('gone');
      // The menu may be published again: look now and then.
      schedule(MAX_DELAY_MS);
    });
    current.addEventListener('error', () => {
      // Our own backoff instead of the browser's fixed retry, resuming from the last event seen.
      current.close();
      if (closed) return;
      handlers.state('reconnecting');
      schedule(delay);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    });
  };

  const schedule = (ms: number) => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(connect, ms / 2 + Math.random() * (ms / 2));
  };

  handlers.state('connecting');
  connect();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      source?.close();
    },
  };
}
