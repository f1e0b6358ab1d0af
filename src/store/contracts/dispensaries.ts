import type { Publishing, PublishingPatch } from '../../domain/publishing.js';
import type { StoreInfo, StoreInfoPatch } from '../../domain/store-info.js';
import type { Actor } from './actor.js';

export interface Dispensary {
  id: number;
  name: string;
  createdAt: string;
  updatedAt: string;
  /** Set when a lookup matched the token before the last rotation: it works until then. */
  tokenExpiresAt?: string;
}

/** A dispensary found by its slug, with its publishing state (published or not). */
export interface PublishedDispensary extends Publishing {
  id: number;
}

export interface DispensarySummary extends Dispensary, Publishing {
  itemCount: number;
  activeItemCount: number;
}

/** Dispensaries, their tokens and their store information. */
export interface DispensaryRepository {
  create(name: string, tokenDigest: string, actor?: Actor): Promise<Dispensary>;
  get(id: number): Promise<Dispensary | undefined>;
  /** By the current token, or by the previous one until it expires (then with `tokenExpiresAt`). */
  findByTokenDigest(digest: string): Promise<Dispensary | undefined>;
  list(): Promise<DispensarySummary[]>;
  /** Replaces the token; the old one keeps working until `previousValidUntil` (now: at once). */
  setToken(id: number, digest: string, actor?: Actor, previousValidUntil?: string): Promise<boolean>;
  /** Removes the dispensary with its menu. */
  remove(id: number, actor?: Actor): Promise<boolean>;
  getStoreInfo(dispensaryId: number): Promise<StoreInfo | undefined>;
  /** Like `getStoreInfo`, with the live feed's head taken in the same snapshot. */
  getStoreInfoAt(dispensaryId: number): Promise<{ info: StoreInfo; cursor: number } | undefined>;
  updateStoreInfo(dispensaryId: number, patch: StoreInfoPatch, actor?: Actor): Promise<StoreInfo | undefined>;
  getPublishing(dispensaryId: number): Promise<Publishing | undefined>;
  /**
   * Sets the publishing fields present, and the store fields of `storePatch`, in one transaction; a
   * slug another dispensary has is a ConflictError. Change kind `dispensary`.
   */
  setPublishing(
    dispensaryId: number,
    patch: PublishingPatch,
    actor?: Actor,
    storePatch?: StoreInfoPatch,
  ): Promise<Publishing | undefined>;
  /** The dispensary with that slug, published or not. */
  findBySlug(slug: string): Promise<PublishedDispensary | undefined>;
}
