import { createHash } from 'node:crypto';
import type { TSchema } from 'typebox';
import type { MenuItem } from '../domain/item.js';
import type { ChangeFeed } from './change-feed.js';
import { cursorOf } from './menu-feed.js';
import {
  type CompressionOptions,
  compress,
  type Encoding,
  negotiateEncoding,
  negotiateWithout,
} from './snapshots/encoding.js';
import { type ListedItem, SegmentedList } from './snapshots/segmented.js';
import { compileItemSerializer, compileSerializer, type Serializer } from './snapshots/serializer.js';

export type { Encoding } from './snapshots/encoding.js';
export type { Serializer } from './snapshots/serializer.js';

/** One answer, ready to write: its bytes in one coding, and its validators. */
export interface Representation {
  readonly body: Buffer;
  readonly encoding: Encoding;
  /** The strong entity tag of these bytes, quoted: the identity hash, with `-gzip` or `-br` for a coding. */
  readonly etag: string;
  /** The identity hash alone: equal for every coding of the same content (what If-None-Match compares). */
  readonly tag: string;
  /** The live feed cursor the content is consistent with (Menu-Cursor), when the built value carried one. */
  readonly cursor?: number;
}

/** A kind of snapshot (a form's menu with one filter and spelling, store information, ...). */
export interface SnapshotView {
  readonly name: string;
  /** The dispensary's answer in the coding `Accept-Encoding` asks for, built if it is not kept. */
  read(dispensaryId: number, acceptEncoding?: string | string[]): Representation | Promise<Representation>;
}

export interface BuildEvent {
  dispensaryId: number;
  view: string;
  encoding: Encoding;
  bytes: number;
  ms: number;
  /** False when a change arrived during the build, or the bytes are larger than the whole budget. */
  stored: boolean;
}

export interface SnapshotOptions {
  /** The most bytes kept, all snapshots and codings together; the least recently used go first. */
  budgetBytes: number;
  /** Reads a dispensary's items, uncached (the snapshots are the cache). */
  loadItems: (dispensaryId: number) => Promise<MenuItem[]>;
  /**
   * The menu with the live feed cursor it is at (one read), and the items changes named after a
   * cursor: with both, list views are patched after a menu change instead of being built again.
   */
  feed?: {
    loadMenu: (dispensaryId: number) => Promise<{ items: MenuItem[]; cursor: number }>;
    /** Undefined when the changes after `after` are no longer all kept: the list is built again. */
    loadChanges: (dispensaryId: number, after: number) => Promise<ChangedItems | undefined>;
  };
  /** Bodies smaller than this are sent uncompressed. */
  compressMinBytes?: number;
  gzipLevel?: number;
  brotliQuality?: number;
  /** Told of every build (the identity bytes, and each coding): for tests and the logs. */
  onBuild?: (event: BuildEvent) => void;
  /** Told of every read: served from a kept snapshot (hit) or built for it (miss), and the bytes served. */
  onRead?: (event: ReadEvent) => void;
}

/** The items the feed's changes after a cursor named, read in one snapshot with the cursor they reach. */
export interface ChangedItems {
  /** Every item id named (items removed or deleted included). */
  itemIds: number[];
  /** Those items as they are now: the ones that still exist. */
  items: MenuItem[];
  /** The feed cursor the answer is at: every change up to it is in it, none after it. */
  cursor: number;
}

export interface ReadEvent {
  view: string;
  hit: boolean;
  bytes: number;
}

export const DEFAULT_SNAPSHOT_BUDGET_BYTES = 256 * 1024 * 1024;

/**
 * Gzip level 6 and brotli quality 5, by measurement on the benchmark's menus (bench/PROFILE.md):
 * quality 5 takes about as long as gzip 6 and is 10 % smaller; quality 4 is faster but larger than
 * gzip 6 on menu JSON, so a client that accepts both would download more. Each coding is built once
 * per change, and only when a client asks for it.
 */
const DEFAULT_COMPRESSION: CompressionOptions = { gzipLevel: 6, brotliQuality: 5 };
const DEFAULT_COMPRESS_MIN_BYTES = 1024;

/** The cold tier (identity bytes no client has read) may hold this fraction of the budget: 1/8. */
const COLD_SHARE = 8;

/** What an entry costs beyond its bytes (the key, the objects, the maps), counted against the budget. */
const ENTRY_OVERHEAD = 256;

interface Entry {
  key: string;
  dispensaryId: number;
  representation: Representation;
  /** A list view's gzip entry: the segmented answer it is assembled from, patched after item changes. */
  list?: ListState;
  size: number;
  /** In the cold tier: identity bytes built only to be compressed, which no client has read yet. */
  cold: boolean;
  /** Read since it was last placed at the back of the order (its second chance, see `makeRoom`). */
  used: boolean;
}

interface Pending {
  dispensaryId: number;
  /** The generation the build began under. */
  stamp: number;
  promise: Promise<Representation>;
}

interface ViewDefinition {
  serialize: Serializer;
  build: (dispensaryId: number) => Promise<unknown>;
  /** A list view: what each canonical item contributes to the array, serialized per item. */
  list?: {
    select: (item: MenuItem) => readonly unknown[];
    serializeItem: (value: unknown) => string;
  };
}

/** A list view's answer for one dispensary, in segments, and the generation it is current for. */
interface ListState {
  list: SegmentedList;
  /** The dispensary's stamp when its items were read: notices after it are not in this list. */
  stamp: number;
  /** The feed cursor the list is at (undefined without a feed: it cannot be patched). */
  cursor: number | undefined;
  /** A menu change arrived since `stamp`: the next read patches the list. */
  stale: boolean;
  gzip: Representation;
}

/**
 * Serialized answers per (dispensary, view, coding), built once after a change and reused by every
 * read until the next one.
 *
 * - Single flight: readers of something being built wait for that one build.
 * - A change notice for a dispensary drops its snapshots and its builds in progress at once. Every
 *   dispensary has a generation stamp, renewed by each notice; a build stores its result only if the
 *   stamp is still the one it started under, so a build that began before a change is never kept.
 * - A byte budget with least-recently-used eviction. Each coding is an entry of its own, so a fleet
 *   of clients that all ask for gzip keeps gzip bytes, not identity bytes they never read: identity
 *   bytes built only to be compressed go to a small cold tier (an eighth of the budget) that is
 *   evicted first and never evicts anything else (a client reading them promotes them). Otherwise a
 *   round-robin over more menus than fit would evict every snapshot just before its next read, and
 *   speculative identity bytes, ten times the size of what is served, would fill the budget. The
 *   budget is never exceeded: an answer larger than it is served, not kept.
 */
export class MenuSnapshots {
  /**
   * Least recently used first, approximated by second chance (CLOCK): a hit only marks its entry, so
   * a read costs no map updates; eviction moves a marked entry to the back instead of dropping it.
   */
  private readonly entries = new Map<string, Entry>();
  /** The cold tier, oldest first, evicted before any entry of `entries`. */
  private readonly cold = new Map<string, Entry>();
  private readonly keysByDispensary = new Map<number, Set<string>>();
  private readonly pending = new Map<string, Pending>();
  private readonly loadingItems = new Map<number, { stamp: number; promise: Promise<MenuItem[]> }>();
  private readonly views = new Map<string, ViewDefinition>();
  private readonly stamps = new Map<number, number>();
  /** The stamp of each dispensary's last change that list views cannot patch (everything may have changed). */
  private readonly fullStamps = new Map<number, number>();
  /** List refreshes in flight, one per (view, dispensary), each after the one before it. */
  private readonly listBuilds = new Map<string, { stamp: number; promise: Promise<ListState> }>();
  /** Lists that keep their identity bytes (for patching), oldest first: counted in the cold tier. */
  private readonly rawHeld = new Map<string, { list: SegmentedList; bytes: number }>();
  private allStamp = 0;
  private clock = 0;
  private used = 0;
  private coldUsed = 0;
  private readonly budget: number;
  private readonly coldLimit: number;
  private readonly minBytes: number;
  private readonly compression: CompressionOptions;

  constructor(
    private readonly options: SnapshotOptions,
    feed?: Pick<ChangeFeed, 'subscribe'>,
  ) {
    this.budget = Math.max(0, options.budgetBytes);
    this.coldLimit = Math.floor(this.budget / COLD_SHARE);
    this.minBytes = options.compressMinBytes ?? DEFAULT_COMPRESS_MIN_BYTES;
    this.compression = {
      gzipLevel: options.gzipLevel ?? DEFAULT_COMPRESSION.gzipLevel,
      brotliQuality: options.brotliQuality ?? DEFAULT_COMPRESSION.brotliQuality,
    };
    feed?.subscribe((change) => {
      // Credentials and admin keys change who may read, never what a dispensary's answers say.
      if (change.kind === 'menu' && change.dispensaryId !== null && this.options.feed) {
        this.menuChanged(change.dispensaryId);
      } else if (change.kind === 'menu' || change.kind === 'dispensary' || change.kind === 'store') {
        this.forget(change.dispensaryId);
      }
    });
  }

  /**
   * Declares a view: its name (unique per meaning, for example `b:menu:both`), the route's response
   * schema its bytes are serialized with, and how to get the value for a dispensary.
   * Declaring a name again replaces the definition (another app over the same snapshots).
   */
  view(
    name: string,
    schema: TSchema | Serializer,
    build: (dispensaryId: number) => Promise<unknown>,
  ): SnapshotView {
    // A function is a serializer of its own (the public menu page renders HTML, not JSON).
    const serialize = typeof schema === 'function' ? (schema as Serializer) : compileSerializer(schema);
    this.views.set(name, { serialize, build });
    return { name, read: (dispensaryId, acceptEncoding) => this.read(name, dispensaryId, acceptEncoding) };
  }

  /**
   * Declares a list view: an array answer (`schema`, the route's array schema) of what `select` makes
   * of each canonical item, in id order. It is kept in segments (see SegmentedList), so that after a
   * change notice that names items only those items are read and serialized again, and only their
   * segments compressed again.
   */
  listView(name: string, schema: TSchema, select: (item: MenuItem) => readonly unknown[]): SnapshotView {
    const serializeItem = compileItemSerializer(schema);
    this.views.set(name, {
      serialize: compileSerializer(schema),
      build: async (dispensaryId) => (await this.items(dispensaryId)).flatMap(select),
      list: { select, serializeItem },
    });
    return { name, read: (dispensaryId, acceptEncoding) => this.read(name, dispensaryId, acceptEncoding) };
  }

  /** The dispensary's items, read once for every build that needs them at the same time; not kept. */
  items(dispensaryId: number): Promise<MenuItem[]> {
    const stamp = this.stampOf(dispensaryId);
    const loading = this.loadingItems.get(dispensaryId);
    if (loading && loading.stamp === stamp) return loading.promise;
    const promise = this.options.loadItems(dispensaryId);
    const entry = { stamp, promise };
    this.loadingItems.set(dispensaryId, entry);
    const done = () => {
      if (this.loadingItems.get(dispensaryId) === entry) this.loadingItems.delete(dispensaryId);
    };
    promise.then(done, done);
    return promise;
  }

  read(
    view: string,
    dispensaryId: number,
    acceptEncoding?: string | string[],
  ): Representation | Promise<Representation> {
    const encoding = negotiateEncoding(acceptEncoding);
    const onRead = this.options.onRead;
    const hit = this.touch(keyOf(view, dispensaryId, encoding));
    if (hit && !hit.list?.stale) {
      onRead?.({ view, hit: true, bytes: hit.representation.body.length });
      return hit.representation;
    }
    if (encoding !== 'identity') {
      // A body too small to compress is the answer in every coding (and never in the cold tier).
      const key = keyOf(view, dispensaryId, 'identity');
      const identity = this.entries.get(key);
      if (identity && identity.representation.body.length < this.minBytes) {
        onRead?.({ view, hit: true, bytes: identity.representation.body.length });
        return this.touch(key)!.representation;
      }
    }
    if (this.views.get(view)?.list) return this.readList(view, dispensaryId, encoding, acceptEncoding);
    const built = this.miss(view, dispensaryId, encoding);
    if (onRead) {
      built.then(
        (representation) => onRead({ view, hit: false, bytes: representation.body.length }),
        () => {},
      );
    }
    return built;
  }

  /** Drops one dispensary's snapshots (or, for null, every one) and stops builds in progress from being kept. */
  forget(dispensaryId: number | null): void {
    const stamp = ++this.clock;
    if (dispensaryId === null) {
      this.allStamp = stamp;
      this.entries.clear();
      this.cold.clear();
      this.rawHeld.clear();
      this.coldUsed = 0;
      this.keysByDispensary.clear();
      this.pending.clear();
      this.loadingItems.clear();
      this.used = 0;
      return;
    }
    this.stamps.set(dispensaryId, stamp);
    this.fullStamps.set(dispensaryId, stamp);
    for (const key of this.keysByDispensary.get(dispensaryId) ?? []) {
      const entry = this.entries.get(key) ?? this.cold.get(key);
      if (entry) this.remove(entry);
    }
    this.keysByDispensary.delete(dispensaryId);
    for (const [key, pending] of this.pending) {
      if (pending.dispensaryId === dispensaryId) this.pending.delete(key);
    }
    this.loadingItems.delete(dispensaryId);
  }

  /**
   * A change to the dispensary's menu that the live feed records item by item: list views keep their
   * answer and patch it on their next read (reading only the items the feed's changes name); other
   * answers are dropped.
   */
  menuChanged(dispensaryId: number): void {
    this.stamps.set(dispensaryId, ++this.clock);
    for (const key of [...(this.keysByDispensary.get(dispensaryId) ?? [])]) {
      const entry = this.entries.get(key) ?? this.cold.get(key);
      if (!entry) continue;
      if (entry.list) entry.list.stale = true;
      else this.remove(entry);
    }
    for (const [key, pending] of this.pending) {
      if (pending.dispensaryId === dispensaryId) this.pending.delete(key);
    }
    this.loadingItems.delete(dispensaryId);
  }

  /** Bytes kept now (with the per-entry overhead); never more than the budget. */
  get usedBytes(): number {
    return this.used;
  }

  get budgetBytes(): number {
    return this.budget;
  }

  get entryCount(): number {
    return this.entries.size + this.cold.size;
  }

  /** Whether an answer is kept in that coding (for tests and diagnostics; does not count as a use). */
  has(view: string, dispensaryId: number, encoding: Encoding): boolean {
    const key = keyOf(view, dispensaryId, encoding);
    return this.entries.has(key) || this.cold.has(key);
  }

  /**
   * A list view's answer that is not kept (or is stale). Brotli is built in the background from the
   * current list while a client that also accepts gzip is served gzip: a change never waits for it.
   */
  private readList(
    view: string,
    dispensaryId: number,
    encoding: Encoding,
    acceptEncoding: string | string[] | undefined,
  ): Promise<Representation> {
    let answer: Promise<Representation>;
    if (encoding === 'br' && negotiateWithout('br', acceptEncoding) === 'gzip') {
      this.listMiss(view, dispensaryId, 'br').catch(() => {
        // A failed background build is tried again by the next read.
      });
      const gzip = this.touch(keyOf(view, dispensaryId, 'gzip'));
      if (gzip && !gzip.list?.stale) answer = Promise.resolve(gzip.representation);
      else answer = this.listMiss(view, dispensaryId, 'gzip');
    } else {
      answer = this.listMiss(view, dispensaryId, encoding);
    }
    const onRead = this.options.onRead;
    if (onRead) {
      answer.then(
        (representation) => onRead({ view, hit: false, bytes: representation.body.length }),
        () => {},
      );
    }
    return answer;
  }

  private async listMiss(view: string, dispensaryId: number, encoding: Encoding): Promise<Representation> {
    const state = await this.currentList(view, dispensaryId);
    const { list, stamp, cursor } = state;
    if (encoding === 'gzip' && list.length >= this.minBytes) return state.gzip;
    const served = encoding === 'identity' || list.length < this.minBytes;
    const identity = () =>
      this.obtain(view, dispensaryId, 'identity', stamp, served, async () => ({
        body: await list.identity(),
        encoding: 'identity',
        etag: `"${list.tag}"`,
        tag: list.tag,
        cursor,
      }));
    if (served) return identity();
    return this.obtain(view, dispensaryId, encoding, stamp, true, async () =>
      this.buildEncoded(
        { body: await list.identity(), encoding: 'identity', etag: `"${list.tag}"`, tag: list.tag, cursor },
        'br',
      ),
    );
  }

  /** The list view's current answer: kept, patched with the items the feed's changes name, or built. */
  private currentList(view: string, dispensaryId: number): Promise<ListState> {
    const key = keyOf(view, dispensaryId, 'gzip');
    const stamp = this.stampOf(dispensaryId);
    const kept = this.entries.get(key)?.list;
    if (kept && kept.stamp === stamp) return Promise.resolve(kept);
    const building = this.listBuilds.get(key);
    if (building && building.stamp === stamp) return building.promise;
    // One refresh at a time per list: the next starts from what the one before it kept.
    const before = building?.promise.then(
      () => undefined,
      () => undefined,
    );
    const promise = (async () => {
      await before;
      return this.refreshList(view, dispensaryId, key);
    })();
    const record = { stamp, promise };
    this.listBuilds.set(key, record);
    const done = () => {
      if (this.listBuilds.get(key) === record) this.listBuilds.delete(key);
    };
    promise.then(done, done);
    return promise;
  }

  private async refreshList(view: string, dispensaryId: number, key: string): Promise<ListState> {
    const definition = this.views.get(view)?.list;
    if (!definition) throw new Error(`no list snapshot view named ${view}`);
    const started = performance.now();
    const stamp = this.stampOf(dispensaryId);
    const base = this.entries.get(key)?.list;
    if (base && base.stamp === stamp) return base;
    const level = this.compression.gzipLevel;
    const text = (item: MenuItem | undefined): string | undefined => {
      if (!item) return undefined;
      const values = definition.select(item);
      return values.length === 0 ? undefined : values.map(definition.serializeItem).join(',');
    };
    const feed = this.options.feed;
    const changed =
      base?.cursor !== undefined && feed && this.fullStampOf(dispensaryId) <= base.stamp
        ? await feed.loadChanges(dispensaryId, base.cursor)
        : undefined;
    let list: SegmentedList;
    let cursor: number | undefined;
    if (base && changed) {
      const byId = new Map(changed.items.map((item) => [item.id, item]));
      list = await base.list.patch(new Map(changed.itemIds.map((id) => [id, text(byId.get(id))])), level);
      cursor = changed.cursor;
    } else {
      let items: MenuItem[];
      if (feed) ({ items, cursor } = await feed.loadMenu(dispensaryId));
      else items = await this.items(dispensaryId);
      const listed: ListedItem[] = [];
      for (const item of items) {
        const value = text(item);
        if (value !== undefined) listed.push({ id: item.id, text: value });
      }
      list = await SegmentedList.build(listed, level);
    }
    const state: ListState = {
      list,
      stamp,
      cursor,
      stale: false,
      gzip: { body: list.gzip, encoding: 'gzip', etag: `"${list.tag}-gzip"`, tag: list.tag, cursor },
    };
    // A change lists cannot patch (or one that dropped everything) since the read began: answered, not kept.
    const stored = this.fullStampOf(dispensaryId) <= stamp && this.keepList(key, dispensaryId, state);
    this.options.onBuild?.({
      dispensaryId,
      view,
      encoding: 'gzip',
      bytes: list.gzip.length,
      ms: performance.now() - started,
      stored,
    });
    return state;
  }

  private keepList(key: string, dispensaryId: number, state: ListState): boolean {
    state.stale = this.stampOf(dispensaryId) !== state.stamp;
    const representation = state.list.length < this.minBytes ? undefined : state.gzip;
    const previous = this.entries.get(key);
    if (previous) this.remove(previous);
    if (representation === undefined) {
      // Too small to compress: the identity entry is the answer; nothing to patch from.
      return false;
    }
    const size = state.list.size + ENTRY_OVERHEAD;
    if (size > this.budget) return false;
    this.makeRoom(size);
    this.entries.set(key, {
      key,
      dispensaryId,
      representation,
      list: state,
      size,
      cold: false,
      used: false,
    });
    this.used += size;
    this.track(key, dispensaryId);
    this.holdRaw(key, state.list);
    return true;
  }

  /** Keeps a list's identity bytes (for patching) in the cold tier, letting older ones go first. */
  private holdRaw(key: string, list: SegmentedList): void {
    this.releaseRaw(key);
    const bytes = list.identityBytes;
    if (bytes === 0) return;
    for (const [oldest] of this.rawHeld) {
      if (this.coldUsed + bytes <= this.coldLimit && this.used + bytes <= this.budget) break;
      this.shedRaw(oldest);
    }
    for (const oldest of this.cold.values()) {
      if (this.coldUsed + bytes <= this.coldLimit && this.used + bytes <= this.budget) break;
      this.remove(oldest);
    }
    if (this.coldUsed + bytes > this.coldLimit || this.used + bytes > this.budget) {
      list.dropIdentity();
      return;
    }
    this.rawHeld.set(key, { list, bytes });
    this.coldUsed += bytes;
    this.used += bytes;
  }

  private releaseRaw(key: string): void {
    const held = this.rawHeld.get(key);
    if (!held) return;
    this.rawHeld.delete(key);
    this.coldUsed -= held.bytes;
    this.used -= held.bytes;
  }

  private shedRaw(key: string): void {
    this.rawHeld.get(key)?.list.dropIdentity();
    this.releaseRaw(key);
  }

  private fullStampOf(dispensaryId: number): number {
    return Math.max(this.fullStamps.get(dispensaryId) ?? 0, this.allStamp);
  }

  private track(key: string, dispensaryId: number): void {
    let keys = this.keysByDispensary.get(dispensaryId);
    if (!keys) {
      keys = new Set();
      this.keysByDispensary.set(dispensaryId, keys);
    }
    keys.add(key);
  }

  private async miss(view: string, dispensaryId: number, encoding: Encoding): Promise<Representation> {
    // Everything this read builds is kept only if no change arrives before it is done.
    const stamp = this.stampOf(dispensaryId);
    const served = encoding === 'identity';
    const identity = await this.obtain(view, dispensaryId, 'identity', stamp, served, () =>
      this.buildIdentity(view, dispensaryId),
    );
    if (served || identity.body.length < this.minBytes) return identity;
    return this.obtain(view, dispensaryId, encoding, stamp, true, () =>
      this.buildEncoded(identity, encoding),
    );
  }

  private obtain(
    view: string,
    dispensaryId: number,
    encoding: Encoding,
    stamp: number,
    served: boolean,
    build: () => Promise<Representation>,
  ): Promise<Representation> {
    const key = keyOf(view, dispensaryId, encoding);
    // Identity bytes wanted only for compressing are used where they lie, without promotion.
    const hit = served ? this.touch(key) : (this.entries.get(key) ?? this.cold.get(key));
    if (hit) return Promise.resolve(hit.representation);
    const current = this.stampOf(dispensaryId);
    const waiting = this.pending.get(key);
    if (waiting && waiting.stamp === current) return waiting.promise;
    const started = performance.now();
    const pending: Pending = {
      dispensaryId,
      stamp,
      promise: build().then(
        (representation) => {
          if (this.pending.get(key) === pending) this.pending.delete(key);
          // Identity bytes built only for compressing are kept cold, unless they are the answer (small).
          const cold = !served && representation.body.length >= this.minBytes;
          const stored =
            this.stampOf(dispensaryId) === stamp && this.keep(key, dispensaryId, representation, cold);
          this.options.onBuild?.({
            dispensaryId,
            view,
            encoding,
            bytes: representation.body.length,
            ms: performance.now() - started,
            stored,
          });
          return representation;
        },
        (error: unknown) => {
          if (this.pending.get(key) === pending) this.pending.delete(key);
          throw error;
        },
      ),
    };
    // A read that began before a change may finish its own (stale) build, but nobody joins it.
    if (stamp === current) this.pending.set(key, pending);
    return pending.promise;
  }

  private async buildIdentity(view: string, dispensaryId: number): Promise<Representation> {
    const definition = this.views.get(view);
    if (!definition) throw new Error(`no snapshot view named ${view}`);
    const value = await definition.build(dispensaryId);
    const body = definition.serialize(value);
    const tag = createHash('sha256').update(body).digest('base64url').slice(0, 32);
    return { body, encoding: 'identity', etag: `"${tag}"`, tag, cursor: cursorOf(value) };
  }

  private async buildEncoded(identity: Representation, encoding: 'br' | 'gzip'): Promise<Representation> {
    const body = await compress(identity.body, encoding, this.compression);
    return {
      body,
      encoding,
      etag: `"${identity.tag}-${encoding}"`,
      tag: identity.tag,
      cursor: identity.cursor,
    };
  }

  private stampOf(dispensaryId: number): number {
    return Math.max(this.stamps.get(dispensaryId) ?? 0, this.allStamp);
  }

  /** The entry, marked as used (a cold entry that is read becomes a hot one, at the back). */
  private touch(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      entry.used = true;
      return entry;
    }
    const cold = this.cold.get(key);
    if (!cold) return undefined;
    this.cold.delete(key);
    this.coldUsed -= cold.size;
    cold.cold = false;
    this.entries.set(key, cold);
    return cold;
  }

  /** Evicts until `size` more bytes fit: cold entries first, then the least recently used. */
  private makeRoom(size: number): void {
    for (const [oldest] of this.rawHeld) {
      if (this.used + size <= this.budget) return;
      this.shedRaw(oldest);
    }
    for (const oldest of this.cold.values()) {
      if (this.used + size <= this.budget) return;
      this.remove(oldest);
    }
    while (this.used + size > this.budget) {
      const oldest = this.entries.values().next().value;
      if (!oldest) return;
      if (oldest.used) {
        oldest.used = false;
        this.entries.delete(oldest.key);
        this.entries.set(oldest.key, oldest);
      } else {
        this.remove(oldest);
      }
    }
  }

  private keep(key: string, dispensaryId: number, representation: Representation, cold: boolean): boolean {
    const size = representation.body.length + ENTRY_OVERHEAD;
    if (size > (cold ? this.coldLimit : this.budget)) return false;
    const previous = this.entries.get(key) ?? this.cold.get(key);
    if (previous) this.remove(previous);
    if (cold) {
      // Speculative bytes make room among themselves only: they never evict an answer clients read.
      for (const oldest of this.cold.values()) {
        if (this.coldUsed + size <= this.coldLimit && this.used + size <= this.budget) break;
        this.remove(oldest);
      }
      if (this.used + size > this.budget) return false;
      this.coldUsed += size;
    } else {
      this.makeRoom(size);
    }
    (cold ? this.cold : this.entries).set(key, {
      key,
      dispensaryId,
      representation,
      size,
      cold,
      used: false,
    });
    this.used += size;
    this.track(key, dispensaryId);
    return true;
  }

  private remove(entry: Entry): void {
    if (entry.list) this.releaseRaw(entry.key);
    (entry.cold ? this.cold : this.entries).delete(entry.key);
    this.used -= entry.size;
    if (entry.cold) this.coldUsed -= entry.size;
    const keys = this.keysByDispensary.get(entry.dispensaryId);
    keys?.delete(entry.key);
    if (keys?.size === 0) this.keysByDispensary.delete(entry.dispensaryId);
  }
}

function keyOf(view: string, dispensaryId: number, encoding: Encoding): string {
  return `${view}|${dispensaryId}|${encoding}`;
}
