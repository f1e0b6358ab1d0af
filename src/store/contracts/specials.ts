import type { Special, SpecialFields } from '../../domain/special-schema.js';
import type { Actor } from './actor.js';

/** A dispensary's specials and the time zone their schedules are read in. */
export interface DispensarySpecials {
  dispensaryId: number;
  /** The store's IANA time zone; null: UTC. */
  timezone: string | null;
  specials: Special[];
}

/**
 * What a boundary records, read ahead of it (SpecialRepository.prepareBoundary): recording it then
 * is a few short statements at the boundary instead of reading the menu's pricing there.
 */
export interface PreparedBoundary {
  dispensaryId: number;
  /** The boundary (ISO 8601), as recordBoundary is given it. */
  at: string;
  /** The newest change of the store (any dispensary) when it was read: a later one may have changed it. */
  seq: number;
  /** The items the boundary reprices, as the live feed records them (canonical JSON). */
  items: readonly { id: number; json: string }[];
}

/**
 * Each dispensary's specials. A write that changes what items cost now records each such item in the
 * live feed, like any change of the item, in the same transaction as the special.
 */
export interface SpecialRepository {
  /** Undefined when the dispensary does not exist. */
  create(dispensaryId: number, fields: SpecialFields, actor?: Actor): Promise<Special | undefined>;
  get(dispensaryId: number, id: number): Promise<Special | undefined>;
  /** The dispensary's specials by id. */
  list(dispensaryId: number): Promise<Special[]>;
  /** Replaces every field; undefined when the dispensary has no such special. */
  update(
    dispensaryId: number,
    id: number,
    fields: SpecialFields,
    actor?: Actor,
  ): Promise<Special | undefined>;
  remove(dispensaryId: number, id: number, actor?: Actor): Promise<boolean>;
  /** The dispensary's specials with its time zone (undefined: no such dispensary). */
  ofDispensary(dispensaryId: number): Promise<DispensarySpecials | undefined>;
  /** Every dispensary that has specials, with them (for the boundary scheduler). */
  everyDispensary(): Promise<DispensarySpecials[]>;
  /**
   * Records a special boundary of the dispensary at `at` (ISO 8601), once across every process: claims
   * it (a row keyed by dispensary and instant) and, in the same transaction, records in the live feed
   * every active item whose effective price or special differs from just before `at`. The number of
   * items recorded, or undefined when the boundary was already claimed. With `prepared` (of this
   * boundary), its items are recorded when no change of the dispensary was recorded since it was read;
   * otherwise they are read again, as without it.
   */
  recordBoundary(
    dispensaryId: number,
    at: string,
    actor?: Actor,
    prepared?: PreparedBoundary,
  ): Promise<number | undefined>;
  /**
   * What recordBoundary would record for the boundary at `at` if nothing changed before it, read now
   * (writes nothing); undefined when the dispensary does not exist.
   */
  prepareBoundary(dispensaryId: number, at: string): Promise<PreparedBoundary | undefined>;
}
