import type { ListState } from './lists.js';
import type { SegmentedList } from './segmented.js';
import type { Representation } from './types.js';

/** The cold tier (identity bytes no client has read) may hold this fraction of the budget: 1/8. */
const COLD_SHARE = 8;

/** What an entry costs beyond its bytes (the key, the objects, the maps), counted against the budget. */
const ENTRY_OVERHEAD = 256;

export interface Entry {
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

/**
 * The kept snapshots, within a byte budget, with least-recently-used eviction. Each coding is an entry
 * of its own, so a fleet of clients that all ask for gzip keeps gzip bytes, not identity bytes they
 * never read: identity bytes built only to be compressed go to a small cold tier (an eighth of the
 * budget) that is evicted first and never evicts anything else (a client reading them promotes them).
 * Otherwise a round-robin over more menus than fit would evict every snapshot just before its next
 * read, and speculative identity bytes, ten times the size of what is served, would fill the budget.
 * The budget is never exceeded: an answer larger than it is served, not kept.
 */
export class SnapshotBudget {
  /**
   * Least recently used first, approximated by second chance (CLOCK): a hit only marks its entry, so
   * a read costs no map updates; eviction moves a marked entry to the back instead of dropping it.
   */
  private readonly entries = new Map<string, Entry>();
  /** The cold tier, oldest first, evicted before any entry of `entries`. */
  private readonly cold = new Map<string, Entry>();
  private readonly keysByDispensary = new Map<number, Set<string>>();
  /** Lists that keep their identity bytes (for patching), oldest first: counted in the cold tier. */
  private readonly rawHeld = new Map<string, { list: SegmentedList; bytes: number }>();
  private used = 0;
  private coldUsed = 0;
  readonly budget: number;
  private readonly coldLimit: number;

  constructor(budgetBytes: number) {
    this.budget = Math.max(0, budgetBytes);
    this.coldLimit = Math.floor(this.budget / COLD_SHARE);
  }

  /** Bytes kept now (with the per-entry overhead); never more than the budget. */
  get usedBytes(): number {
    return this.used;
  }

  get entryCount(): number {
    return this.entries.size + this.cold.size;
  }

  /** The entry, marked as used (a cold entry that is read becomes a hot one, at the back). */
  touch(key: string): Entry | undefined {
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

  /** The entry if it is in the hot tier, not marked as used. */
  hot(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  /** The entry in either tier, not marked as used (and a cold one not promoted). */
  peek(key: string): Entry | undefined {
    return this.entries.get(key) ?? this.cold.get(key);
  }

  has(key: string): boolean {
    return this.entries.has(key) || this.cold.has(key);
  }

  /** Keeps an answer (cold: in the cold tier); false when it is not kept (larger than its tier). */
  keep(key: string, dispensaryId: number, representation: Representation, cold: boolean): boolean {
    const size = representation.body.length + ENTRY_OVERHEAD;
    if (size > (cold ? this.coldLimit : this.budget)) return false;
    this.drop(key);
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

  /** Keeps a list view's gzip answer with its segments (and, room permitting, their identity bytes). */
  keepList(key: string, dispensaryId: number, state: ListState): boolean {
    this.drop(key);
    const size = state.list.size + ENTRY_OVERHEAD;
    if (size > this.budget) return false;
    this.makeRoom(size);
    this.entries.set(key, {
      key,
      dispensaryId,
      representation: state.gzip,
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

  /** Drops the entry of `key`, if there is one. */
  drop(key: string): void {
    const previous = this.entries.get(key) ?? this.cold.get(key);
    if (previous) this.remove(previous);
  }

  /** Drops every entry of the dispensary. */
  dropDispensary(dispensaryId: number): void {
    for (const key of this.keysByDispensary.get(dispensaryId) ?? []) this.drop(key);
    this.keysByDispensary.delete(dispensaryId);
  }

  /** Marks the dispensary's list entries stale (to be patched on their next read); drops the others. */
  staleDispensary(dispensaryId: number): void {
    for (const key of [...(this.keysByDispensary.get(dispensaryId) ?? [])]) {
      const entry = this.entries.get(key) ?? this.cold.get(key);
      if (!entry) continue;
      if (entry.list) entry.list.stale = true;
      else this.remove(entry);
    }
  }

  clear(): void {
    this.entries.clear();
    this.cold.clear();
    this.rawHeld.clear();
    this.coldUsed = 0;
    this.keysByDispensary.clear();
    this.used = 0;
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

  private track(key: string, dispensaryId: number): void {
    let keys = this.keysByDispensary.get(dispensaryId);
    if (!keys) {
      keys = new Set();
      this.keysByDispensary.set(dispensaryId, keys);
    }
    keys.add(key);
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
