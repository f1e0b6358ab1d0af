import { generateSecret, secretDigest } from '../auth/secrets.js';
import {
  numberedSlug,
  PUBLISHING_FIELDS,
  type Publishing,
  type PublishingPatch,
  suggestSlug,
  validatePublishingPatch,
} from '../domain/publishing.js';
import {
  type StoreInfo,
  type StoreInfoPatch,
  toStoreInfoRecord,
  validateStoreInfoPatch,
  type WeeklyHours,
} from '../domain/store-info.js';
import {
  type Actor,
  ConflictError,
  type Dispensary,
  type DispensarySummary,
  type Store,
} from '../store/store.js';
import { describeProblems, ServiceError } from './errors.js';

export type AfterWrite = () => Promise<void>;

/** How long a rotated-out token keeps working unless the caller says otherwise. */
export const DEFAULT_TOKEN_GRACE_SECONDS = 24 * 60 * 60;
const MAX_TOKEN_GRACE_SECONDS = 30 * 24 * 60 * 60;
const nothing: AfterWrite = async () => {};

export interface IssuedToken {
  id: number;
  token: string;
}

/** Onboards dispensaries. Tokens are returned once, here, and stored only as a digest. */
export class DispensaryService {
  constructor(
    private readonly store: Store,
    private readonly afterWrite: AfterWrite = nothing,
  ) {}

  async create(name: string, actor?: Actor): Promise<Dispensary & { token: string }> {
    const trimmed = typeof name === 'string' ? name.trim() : '';
    if (trimmed.length === 0 || trimmed.length > 200) {
      throw new ServiceError('invalid_request', 'A dispensary name must be 1 to 200 characters.');
    }
    if (trimmed.includes('\0')) {
      throw new ServiceError('invalid_request', 'A dispensary name must not contain a NUL character.');
    }
    const token = generateSecret();
    const dispensary = await this.store.dispensaries.create(trimmed, secretDigest(token), actor);
    await this.afterWrite();
    return { ...dispensary, token };
  }

  /** Creates a dispensary with store fields (snake_case); the fields are checked before anything is written. */
  async createWithStore(
    name: string,
    storeFields: Record<string, unknown>,
    actor?: Actor,
  ): Promise<Dispensary & { token: string; store: ReturnType<typeof toStoreInfoRecord> }> {
    // Checked before the dispensary exists, so bad store fields create nothing.
    const patch = checkedStorePatch(storeFields);
    const created = await this.create(name, actor);
    const store =
      Object.keys(patch).length > 0
        ? await this.applyStorePatch(created.id, patch, actor)
        : toStoreInfoRecord(await this.storeInfo(created.id));
    return { ...created, store };
  }

  /** Store information as integrators read it. */
  storeInfo(id: number): Promise<StoreInfo> {
    return found(id, this.store.dispensaries.getStoreInfo(id));
  }

  /** Sets the store fields present in `raw` (snake_case, as on the wire); null clears a field. */
  async updateStoreInfo(
    id: number,
    raw: unknown,
    actor?: Actor,
  ): Promise<ReturnType<typeof toStoreInfoRecord>> {
    // Hours may name only the days that change: the others keep the hours the store has now.
    const partialHours =
      typeof raw === 'object' && raw !== null && typeof (raw as { hours?: unknown }).hours === 'object';
    const current = partialHours ? (await this.storeInfo(id)).hours : null;
    return this.applyStorePatch(id, checkedStorePatch(raw, current), actor);
  }

  private async applyStorePatch(
    id: number,
    patch: StoreInfoPatch,
    actor?: Actor,
  ): Promise<ReturnType<typeof toStoreInfoRecord>> {
    const info = await found(id, this.store.dispensaries.updateStoreInfo(id, patch, actor));
    await this.afterWrite();
    return toStoreInfoRecord(info);
  }

  publishing(id: number): Promise<Publishing> {
    return found(id, this.store.dispensaries.getPublishing(id));
  }

  /**
   * Publishes, unpublishes, or changes the slug or show_stock. Publishing a dispensary that has no slug
   * and names none gets one suggested from its name (`name-2`, ... when taken). A slug another
   * dispensary has is a conflict. The change notice makes every process drop its public pages at once.
   */
  async setPublishing(id: number, raw: Record<string, unknown>, actor?: Actor): Promise<Publishing> {
    return this.update(id, raw, actor);
  }

  /**
   * PATCH /admin/v1/dispensaries/{id}: store fields and publishing fields (published, slug,
   * show_stock) in one body, checked together and written in one transaction, or nothing written.
   */
  async update(id: number, body: unknown, actor?: Actor): Promise<Publishing> {
    const raw = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
    const publishingFields: Record<string, unknown> = {};
    const storeFields: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(raw)) {
      (field in PUBLISHING_FIELDS ? publishingFields : storeFields)[field] = value;
    }
    const storePatch = raw === body ? checkedStorePatch(storeFields) : checkedStorePatch(body);
    const checked = validatePublishingPatch(publishingFields);
    if (!checked.ok) {
      throw new ServiceError(
        'invalid_request',
        `The publishing fields were rejected: ${describeProblems(checked.problems)}.`,
        checked.problems,
      );
    }
    return this.applyPublishing(id, checked.patch, actor, storePatch);
  }

  async applyPublishing(
    id: number,
    patch: PublishingPatch,
    actor?: Actor,
    storePatch: StoreInfoPatch = {},
  ): Promise<Publishing> {
    const current = await this.publishing(id);
    const wanted: PublishingPatch = { ...patch };
    if (wanted.slug !== undefined) {
      const owner = await this.store.dispensaries.findBySlug(wanted.slug);
      if (owner && owner.id !== id) throw slugTaken(wanted.slug);
    } else if (wanted.published && current.slug === null) {
      wanted.slug = await this.freeSlug(id, storePatch.name ?? (await this.get(id)).name);
    }
    try {
      const written = await found(id, this.store.dispensaries.setPublishing(id, wanted, actor, storePatch));
      await this.afterWrite();
      return written;
    } catch (error) {
      // Another writer took the slug between the check and the write.
      if (error instanceof ConflictError) throw slugTaken(wanted.slug ?? '');
      throw error;
    }
  }

  private async freeSlug(id: number, name: string): Promise<string> {
    const base = suggestSlug(name);
    for (let number = 1; number <= 100; number++) {
      const candidate = number === 1 ? base : numberedSlug(base, number);
      const owner = await this.store.dispensaries.findBySlug(candidate);
      if (!owner || owner.id === id) return candidate;
    }
    return numberedSlug(base, id);
  }

  /** Creates a dispensary whose token the caller chose (the demo's well-known token). */
  async createWithToken(name: string, token: string): Promise<Dispensary> {
    const dispensary = await this.store.dispensaries.create(name, secretDigest(token));
    await this.afterWrite();
    return dispensary;
  }

  findByToken(token: string): Promise<Dispensary | undefined> {
    return this.store.dispensaries.findByTokenDigest(secretDigest(token));
  }

  list(): Promise<DispensarySummary[]> {
    return this.store.dispensaries.list();
  }

  get(id: number): Promise<Dispensary> {
    return found(id, this.store.dispensaries.get(id));
  }

  /** Replaces the token: the new one works at once; the old one keeps working for the grace period. */
  /**
   * Replaces the token. The old one keeps working for `graceSeconds` (default 24 hours) so that
   * integrators can switch without an outage; 0 stops it at once.
   */
  async rotateToken(
    id: number,
    actor?: Actor,
    graceSeconds = DEFAULT_TOKEN_GRACE_SECONDS,
  ): Promise<IssuedToken> {
    if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_TOKEN_GRACE_SECONDS) {
      throw new ServiceError(
        'invalid_request',
        `The grace period must be a whole number of seconds from 0 to ${MAX_TOKEN_GRACE_SECONDS} (30 days).`,
      );
    }
    const token = generateSecret();
    const previousValidUntil =
      graceSeconds > 0 ? new Date(Date.now() + graceSeconds * 1000).toISOString() : undefined;
    if (!(await this.store.dispensaries.setToken(id, secretDigest(token), actor, previousValidUntil)))
      throw notFound(id);
    await this.afterWrite();
    return { id, token };
  }

  async remove(id: number, actor?: Actor): Promise<void> {
    if (!(await this.store.dispensaries.remove(id, actor))) throw notFound(id);
    await this.afterWrite();
  }
}

/** What a lookup of dispensary `id` found; a missing dispensary is the caller's not_found. */
async function found<T>(id: number, lookup: Promise<T | undefined>): Promise<T> {
  const value = await lookup;
  if (!value) throw notFound(id);
  return value;
}

export function notFound(id: number): ServiceError {
  return new ServiceError(
    'not_found',
    `There is no dispensary ${id}. List them with: npx menu-api dispensary list`,
  );
}

function slugTaken(slug: string): ServiceError {
  return new ServiceError(
    'conflict',
    `The slug "${slug}" is used by another dispensary. Choose another (3 to 64 characters of a-z, 0-9 and -), or leave it out to have one suggested from the name.`,
    // Named as a field problem too, so that a form (the console's) shows it at the slug field.
    [{ field: 'slug', message: `"${slug}" is used by another dispensary: choose another` }],
  );
}

/** Store fields as the wire sends them (snake_case), validated, or a 400 naming every problem. */
function checkedStorePatch(raw: unknown, currentHours: WeeklyHours | null = null): StoreInfoPatch {
  const result = validateStoreInfoPatch(raw, currentHours);
  if (!result.ok) {
    throw new ServiceError(
      'invalid_request',
      `The store information was rejected: ${describeProblems(result.problems)}.`,
      result.problems,
    );
  }
  return result.patch;
}
