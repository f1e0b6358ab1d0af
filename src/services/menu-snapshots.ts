import type { TSchema } from 'typebox';
import type { MenuItem } from '../domain/item.js';
import { SingleFlight } from '../util/single-flight.js';
import type { ChangeFeed } from './change-feed.js';
import { cursorOf } from './menu-feed.js';
import { SnapshotBudget } from './snapshots/budget.js';
import {
  DEFAULT_COMPRESS_MIN_BYTES,
  DEFAULT_COMPRESSION,
  encodedOf,
  identityOf,
} from './snapshots/codings.js';
import {
  type CompressionOptions,
  type Encoding,
  negotiateEncoding,
  negotiateWithout,
} from './snapshots/encoding.js';
import { Generations } from './snapshots/generations.js';
import { buildList, type ListDefinition, type ListState, listState, patchList } from './snapshots/lists.js';
import type { SegmentedList } from './snapshots/segmented.js';
import { compileItemSerializer, compileSerializer, type Serializer } from './snapshots/serializer.js';
import type { Representation, SnapshotOptions, SnapshotView } from './snapshots/types.js';

export type { Encoding } from './snapshots/encoding.js';
export type { Serializer } from './snapshots/serializer.js';
export type {
  BuildEvent,
  ChangedItems,
  ReadEvent,
  Representation,
  SnapshotOptions,
  SnapshotView,
} from './snapshots/types.js';

export const DEFAULT_SNAPSHOT_BUDGET_BYTES = 256 * 1024 * 1024;

interface ViewDefinition {
  serialize: Serializer;
  build: (dispensaryId: number) => Promise<unknown>;
  /** A list view: kept in segments and patched after item changes. */
  list?: ListDefinition;
}

/**
 * Serialized answers per (dispensary, view, coding), built once after a change and reused by every
 * read until the next one.
 *
 * - Single flight: readers of something being built wait for that one build.
 * - A change notice for a dispensary drops its snapshots at once and renews its generation stamp
 *   (see Generations): a build stores its result only if the stamp is still the one it started under,
 *   and nobody joins a build that began before a change.
 * - A byte budget with least-recently-used eviction, and a cold tier for identity bytes built only to
 *   be compressed (see SnapshotBudget).
 */
export class MenuSnapshots {
  private readonly kept: SnapshotBudget;
  private readonly generations = new Generations();
  private readonly views = new Map<string, ViewDefinition>();
  /** Builds of one answer (view, dispensary, coding). */
  private readonly builds = new SingleFlight<string, Representation>();
  /** Reads of one dispensary's items, for every build that needs them at the same time. */
  private readonly itemLoads = new SingleFlight<number, MenuItem[]>();
  /** List refreshes, one per (view, dispensary), each after the one before it. */
  private readonly listBuilds = new SingleFlight<string, ListState>();
  /** Dispensaries whose read lists are to be patched after a menu change notice (see menuChanged). */
  private readonly refreshing = new Set<number>();
  private readonly minBytes: number;
  private readonly compression: CompressionOptions;

  constructor(
    private readonly options: SnapshotOptions,
    feed?: Pick<ChangeFeed, 'subscribe'>,
  ) {
    this.kept = new SnapshotBudget(options.budgetBytes);
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
    return this.itemLoads.run(dispensaryId, this.generations.of(dispensaryId), () =>
      this.options.loadItems(dispensaryId),
    );
  }

  read(
    view: string,
    dispensaryId: number,
    acceptEncoding?: string | string[],
  ): Representation | Promise<Representation> {
    const encoding = negotiateEncoding(acceptEncoding);
    const onRead = this.options.onRead;
    const hit = this.kept.touch(keyOf(view, dispensaryId, encoding));
    if (hit && !hit.list?.stale) {
      if (hit.list) hit.list.served = true;
      onRead?.({ view, hit: true, bytes: hit.representation.body.length });
      return hit.representation;
    }
    if (encoding !== 'identity') {
      // A body too small to compress is the answer in every coding (and never in the cold tier).
      const key = keyOf(view, dispensaryId, 'identity');
      const identity = this.kept.hot(key);
      if (identity && identity.representation.body.length < this.minBytes) {
        onRead?.({ view, hit: true, bytes: identity.representation.body.length });
        return this.kept.touch(key)!.representation;
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
    if (dispensaryId === null) {
      this.generations.allChanged();
      this.kept.clear();
      return;
    }
    this.generations.changed(dispensaryId);
    this.kept.dropDispensary(dispensaryId);
  }

  /**
   * A change to the dispensary's menu that the live feed records item by item: list views keep their
   * answer and patch it (reading only the items the feed's changes name); other answers are dropped.
   * A list that was read since it was last made current is patched right after the notice, so that
   * its next reader finds it current (at a special's boundary the first read paid 10-40 ms for a
   * patch); one that nobody read since waits for its next read, so a menu nobody reads costs at most
   * one patch after its last read.
   */
  menuChanged(dispensaryId: number): void {
    this.generations.itemsChanged(dispensaryId);
    this.kept.staleDispensary(dispensaryId);
    if (this.refreshing.has(dispensaryId)) return;
    this.refreshing.add(dispensaryId);
    // After the notice's other listeners (the live streams) have had it: they are what is waited for.
    setImmediate(() => {
      this.refreshing.delete(dispensaryId);
      this.refreshServedLists(dispensaryId);
    });
  }

  /** Brings the dispensary's stale lists that were read since they were made current up to date. */
  private refreshServedLists(dispensaryId: number): void {
    for (const [view, definition] of this.views) {
      if (!definition.list) continue;
      const state = this.kept.hot(keyOf(view, dispensaryId, 'gzip'))?.list;
      if (!state?.served || !state.stale) continue;
      this.currentList(view, dispensaryId).catch(() => {
        // Patched on its next read instead, which then answers the failure.
      });
    }
  }

  /** Bytes kept now (with the per-entry overhead); never more than the budget. */
  get usedBytes(): number {
    return this.kept.usedBytes;
  }

  get budgetBytes(): number {
    return this.kept.budget;
  }

  get entryCount(): number {
    return this.kept.entryCount;
  }

  /** Whether an answer is kept in that coding (for tests and diagnostics; does not count as a use). */
  has(view: string, dispensaryId: number, encoding: Encoding): boolean {
    return this.kept.has(keyOf(view, dispensaryId, encoding));
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
      const gzip = this.kept.touch(keyOf(view, dispensaryId, 'gzip'));
      if (gzip && !gzip.list?.stale) {
        if (gzip.list) gzip.list.served = true;
        answer = Promise.resolve(gzip.representation);
      } else answer = this.listMiss(view, dispensaryId, 'gzip');
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
    state.served = true;
    const { list, stamp, cursor } = state;
    if (encoding === 'gzip' && list.length >= this.minBytes) return state.gzip;
    const served = encoding === 'identity' || list.length < this.minBytes;
    if (served) {
      return this.obtain(view, dispensaryId, 'identity', stamp, true, () => listIdentity(list, cursor));
    }
    return this.obtain(view, dispensaryId, encoding, stamp, true, async () =>
      encodedOf(await listIdentity(list, cursor), 'br', this.compression),
    );
  }

  /** The list view's current answer: kept, patched with the items the feed's changes name, or built. */
  private currentList(view: string, dispensaryId: number): Promise<ListState> {
    const key = keyOf(view, dispensaryId, 'gzip');
    const stamp = this.generations.of(dispensaryId);
    const kept = this.kept.hot(key)?.list;
    if (kept && kept.stamp === stamp) return Promise.resolve(kept);
    return this.listBuilds.run(key, stamp, async (earlier) => {
      // One refresh at a time per list: the next starts from what the one before it kept.
      await earlier?.then(
        () => undefined,
        () => undefined,
      );
      return this.refreshList(view, dispensaryId, key);
    });
  }

  private async refreshList(view: string, dispensaryId: number, key: string): Promise<ListState> {
    const definition = this.views.get(view)?.list;
    if (!definition) throw new Error(`no list snapshot view named ${view}`);
    const started = performance.now();
    const stamp = this.generations.of(dispensaryId);
    const base = this.kept.hot(key)?.list;
    if (base && base.stamp === stamp) return base;
    const level = this.compression.gzipLevel;
    const feed = this.options.feed;
    const changed =
      base?.cursor !== undefined && feed && this.generations.fullOf(dispensaryId) <= base.stamp
        ? await feed.loadChanges(dispensaryId, base.cursor)
        : undefined;
    let list: SegmentedList;
    let cursor: number | undefined;
    if (base && changed) {
      list = await patchList(definition, base.list, changed, level);
      cursor = changed.cursor;
    } else {
      let items: MenuItem[];
      if (feed) ({ items, cursor } = await feed.loadMenu(dispensaryId));
      else items = await this.items(dispensaryId);
      list = await buildList(definition, items, level);
    }
    const state = listState(list, stamp, cursor);
    // A change lists cannot patch (or one that dropped everything) since the read began: answered, not kept.
    const stored = this.generations.fullOf(dispensaryId) <= stamp && this.keepList(key, dispensaryId, state);
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
    state.stale = this.generations.of(dispensaryId) !== state.stamp;
    if (state.list.length < this.minBytes) {
      // Too small to compress: the identity entry is the answer; nothing to patch from.
      this.kept.drop(key);
      return false;
    }
    return this.kept.keepList(key, dispensaryId, state);
  }

  private async miss(view: string, dispensaryId: number, encoding: Encoding): Promise<Representation> {
    // Everything this read builds is kept only if no change arrives before it is done.
    const stamp = this.generations.of(dispensaryId);
    const served = encoding === 'identity';
    const identity = await this.obtain(view, dispensaryId, 'identity', stamp, served, () =>
      this.buildIdentity(view, dispensaryId),
    );
    if (served || identity.body.length < this.minBytes) return identity;
    return this.obtain(view, dispensaryId, encoding, stamp, true, () =>
      encodedOf(identity, encoding, this.compression),
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
    const hit = served ? this.kept.touch(key) : this.kept.peek(key);
    if (hit) return Promise.resolve(hit.representation);
    const flight = () => {
      const started = performance.now();
      return build().then((representation) => {
        // Identity bytes built only for compressing are kept cold, unless they are the answer (small).
        const cold = !served && representation.body.length >= this.minBytes;
        const stored =
          this.generations.of(dispensaryId) === stamp &&
          this.kept.keep(key, dispensaryId, representation, cold);
        this.options.onBuild?.({
          dispensaryId,
          view,
          encoding,
          bytes: representation.body.length,
          ms: performance.now() - started,
          stored,
        });
        return representation;
      });
    };
    const current = this.generations.of(dispensaryId);
    if (stamp === current) return this.builds.run(key, stamp, flight);
    // A read that began before a change may finish its own (stale) build, but nobody joins it.
    return this.builds.joinable(key, current) ?? flight();
  }

  private async buildIdentity(view: string, dispensaryId: number): Promise<Representation> {
    const definition = this.views.get(view);
    if (!definition) throw new Error(`no snapshot view named ${view}`);
    const value = await definition.build(dispensaryId);
    return identityOf(definition.serialize(value), cursorOf(value));
  }
}

/** A list's identity bytes as an answer (its tag is the list's, as for its gzip bytes). */
async function listIdentity(list: SegmentedList, cursor: number | undefined): Promise<Representation> {
  return { body: await list.identity(), encoding: 'identity', etag: `"${list.tag}"`, tag: list.tag, cursor };
}

function keyOf(view: string, dispensaryId: number, encoding: Encoding): string {
  return `${view}|${dispensaryId}|${encoding}`;
}
