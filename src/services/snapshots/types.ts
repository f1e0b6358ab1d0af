import type { MenuItem } from '../../domain/item.js';
import type { Encoding } from './encoding.js';

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
  /** A `Link` header to send with it (the next page of a paged answer). */
  readonly link?: string;
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
