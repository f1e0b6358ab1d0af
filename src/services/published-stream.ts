import { randomBytes } from 'node:crypto';
import type { PublishedItem, PublishedMenu, PublishedStore } from '../domain/published-menu.js';
import { NotPublishedError, type PublishedMenus } from './published-menus.js';

/** What a public event stream carries: only published fields (src/domain/published-menu.ts). */
export type StreamEvent =
  /** The whole published menu: on connect, and on a resume that cannot be served from the buffer. */
  | { id: string; type: 'snapshot'; data: PublishedMenu }
  /** What changed since the previous event: items added or changed, items gone, the store when it changed. */
  | {
      id: string;
      type: 'update';
      data: { items: PublishedItem[]; removed: number[]; store?: PublishedStore; updated_at: string };
    }
  /** The dispensary was unpublished: the stream ends, and its public URLs answer 404. */
  | { id: string; type: 'gone'; data: Record<string, never> };

export type StreamListener = (event: StreamEvent) => void;

interface Followed {
  menu: PublishedMenu;
  /** Each item of `menu` with its JSON, by id: what the next menu's items are compared with (difference). */
  texts: ReadonlyMap<number, ItemText>;
  /** The number of the latest event (or of the snapshot the state began with). */
  seq: number;
  /** Every event numbered after this one is in the buffer. */
  floor: number;
  /** The latest events, oldest first, for clients resuming with Last-Event-ID. */
  buffer: StreamEvent[];
  listeners: Set<StreamListener>;
  refreshing: boolean;
  dirty: boolean;
}

export interface PublishedStreamOptions {
  /** Events kept per followed dispensary for resuming clients (default 500). */
  bufferSize?: number;
}

/**
 * The public event stream of published menus. For each dispensary somebody follows, it keeps the last
 * published menu; on a change notice it reads the new one (one read however many clients follow)
 * and sends each follower the difference: the items added or changed, the ids removed, the store
 * when it changed. Events are numbered `<process epoch>.<n>`; a client resuming with the id of an
 * event still in the buffer gets the events after it, any other id (another process, a restart,
 * too far behind) gets a fresh snapshot. Nothing is kept for a dispensary nobody follows.
 */
export class PublishedStream {
  private readonly epoch = randomBytes(4).toString('hex');
  private readonly followed = new Map<number, Followed>();
  private readonly bufferSize: number;
  /** Event numbers, shared by every dispensary of this process, so that an id never means two things. */
  private counter = 0;

  constructor(
    private readonly published: PublishedMenus,
    options: PublishedStreamOptions = {},
  ) {
    this.bufferSize = options.bufferSize ?? 500;
    published.onChange((change) => {
      if (change.dispensaryId === null) {
        for (const id of this.followed.keys()) this.refresh(id);
      } else if (this.followed.has(change.dispensaryId)) {
        this.refresh(change.dispensaryId);
      }
    });
  }

  /** Followers now, all dispensaries together (for tests and metrics). */
  get followers(): number {
    let count = 0;
    for (const state of this.followed.values()) count += state.listeners.size;
    return count;
  }

  /**
   * Follows a dispensary's published menu: `listener` hears the catch-up (events after
   * `lastEventId`, or a snapshot) at once, then every change. Resolves to the function that stops it.
   * Rejects with NotPublishedError when the dispensary is not published.
   */
  async follow(
    dispensaryId: number,
    lastEventId: string | undefined,
    listener: StreamListener,
  ): Promise<() => void> {
    let state = this.followed.get(dispensaryId);
    if (!state) {
      const menu = await this.published.menu(dispensaryId);
      // Another follower may have started while the menu was read.
      state = this.followed.get(dispensaryId);
      if (!state) {
        const seq = ++this.counter;
        state = {
          menu,
          texts: itemTexts(menu),
          seq,
          floor: seq,
          buffer: [],
          listeners: new Set(),
          refreshing: false,
          dirty: false,
        };
        this.followed.set(dispensaryId, state);
      }
    }
    const current = state;
    for (const event of this.catchUp(current, lastEventId)) listener(event);
    current.listeners.add(listener);
    return () => {
      current.listeners.delete(listener);
      if (current.listeners.size === 0 && this.followed.get(dispensaryId) === current) {
        this.followed.delete(dispensaryId);
      }
    };
  }

  private idOf(seq: number): string {
    return `${this.epoch}.${seq}`;
  }

  private catchUp(state: Followed, lastEventId: string | undefined): StreamEvent[] {
    const snapshot: StreamEvent[] = [{ id: this.idOf(state.seq), type: 'snapshot', data: state.menu }];
    if (!lastEventId) return snapshot;
    const [epoch, number] = lastEventId.split('.');
    const seq = Number(number);
    // Only an id whose every later event is still buffered can be resumed; any other gets a snapshot.
    if (epoch !== this.epoch || !Number.isInteger(seq) || seq < state.floor || seq > state.seq)
      return snapshot;
    return state.buffer.filter((event) => Number(event.id.split('.')[1]) > seq);
  }

  /** Reads the menu again and sends the difference; a change during the read reads once more after it. */
  private refresh(dispensaryId: number): void {
    const state = this.followed.get(dispensaryId);
    if (!state) return;
    if (state.refreshing) {
      state.dirty = true;
      return;
    }
    state.refreshing = true;
    state.dirty = false;
    this.published
      .menu(dispensaryId)
      .then(
        (menu) => this.publish(state, menu),
        (error: unknown) => {
          if (error instanceof NotPublishedError) this.end(dispensaryId, state);
          // Any other failure (the database is down): the feed's recovery notice refreshes again.
        },
      )
      .finally(() => {
        state.refreshing = false;
        if (state.dirty && this.followed.get(dispensaryId) === state) this.refresh(dispensaryId);
      });
  }

  private publish(state: Followed, menu: PublishedMenu): void {
    const texts = itemTexts(menu, state.texts);
    const update = difference(state.menu, state.texts, menu, texts);
    state.menu = menu;
    state.texts = texts;
    if (!update) return;
    state.seq = ++this.counter;
    const event: StreamEvent = { id: this.idOf(state.seq), type: 'update', data: update.data };
    frames.set(event, frameOf(event, update.text));
    state.buffer.push(event);
    if (state.buffer.length > this.bufferSize) {
      const dropped = state.buffer.shift()!;
      state.floor = Number(dropped.id.split('.')[1]);
    }
    for (const listener of state.listeners) listener(event);
  }

  private end(dispensaryId: number, state: Followed): void {
    state.seq = ++this.counter;
    const event: StreamEvent = { id: this.idOf(state.seq), type: 'gone', data: {} };
    for (const listener of state.listeners) listener(event);
    state.listeners.clear();
    if (this.followed.get(dispensaryId) === state) this.followed.delete(dispensaryId);
  }
}

/**
 * Each event's server-sent event text, made once for every follower: at a special's boundary an update
 * names 1,000 items, which each follower serialized again (bench/PROFILE.md, round twenty-four).
 */
const frames = new WeakMap<StreamEvent, string>();

const frameOf = (event: StreamEvent, data: string): string =>
  `id: ${event.id}\nevent: ${event.type}\ndata: ${data}\n\n`;

/** The event as a server-sent event (`id:`, `event:` and `data:` lines and the blank line). */
export function eventFrame(event: StreamEvent): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = frameOf(event, JSON.stringify(event.data));
    frames.set(event, frame);
  }
  return frame;
}

/** A published item and its JSON. */
interface ItemText {
  item: PublishedItem;
  text: string;
}

/**
 * A published menu's items with their JSON, by id. An item that is the very object of the menu before
 * (`before`) keeps its JSON: a menu patched after a change (PublishedMenus) shares the objects of the
 * items it left alike, so only the changed ones are serialized.
 */
function itemTexts(menu: PublishedMenu, before?: ReadonlyMap<number, ItemText>): Map<number, ItemText> {
  const texts = new Map<number, ItemText>();
  for (const item of menu.items) {
    const kept = before?.get(item.id);
    texts.set(item.id, kept?.item === item ? kept : { item, text: JSON.stringify(item) });
  }
  return texts;
}

/** An update's data, and its JSON made of the items' JSON already made (itemTexts). */
interface Update {
  data: { items: PublishedItem[]; removed: number[]; store?: PublishedStore; updated_at: string };
  /** `JSON.stringify(data)`, byte for byte. */
  text: string;
}

/**
 * What changed from one published menu to the next (each with its items' JSON, itemTexts); undefined
 * when nothing a page shows did. The JSON of the menu before is the one made when it was new, kept
 * rather than made again: at a special's boundary every change reads a menu of thousands of items.
 */
function difference(
  before: PublishedMenu,
  beforeTexts: ReadonlyMap<number, ItemText>,
  after: PublishedMenu,
  afterTexts: ReadonlyMap<number, ItemText>,
): Update | undefined {
  const items: PublishedItem[] = [];
  const texts: string[] = [];
  for (const item of after.items) {
    const text = afterTexts.get(item.id)!.text;
    if (beforeTexts.get(item.id)?.text === text) continue;
    items.push(item);
    texts.push(text);
  }
  const removed = before.items.filter((item) => !afterTexts.has(item.id)).map((item) => item.id);
  const store = JSON.stringify(after.store);
  const storeChanged = JSON.stringify(before.store) !== store;
  if (items.length === 0 && removed.length === 0 && !storeChanged) return undefined;
  // The keys in the order of `data` below, as JSON.stringify writes them.
  const text = `{"items":[${texts.join(',')}],"removed":${JSON.stringify(removed)},${storeChanged ? `"store":${store},` : ''}"updated_at":${JSON.stringify(after.updated_at)}}`;
  return {
    data: { items, removed, ...(storeChanged ? { store: after.store } : {}), updated_at: after.updated_at },
    text,
  };
}
