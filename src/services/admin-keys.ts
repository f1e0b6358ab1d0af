import { generateSecret, secretDigest } from '../auth/secrets.js';
import { type Actor, type AdminKey, ConflictError, type Store } from '../store/store.js';
import type { ChangeFeed } from './change-feed.js';
import type { AfterWrite } from './dispensaries.js';
import { ServiceError } from './errors.js';

const NAME = /^[A-Za-z0-9._@-]{1,64}$/;
const SCOPE = /^(all|dispensary:[1-9]\d{0,9})$/;
/** A prefix makes a leaked key easy to recognise (and to scan for in repositories). */
const KEY_PREFIX = 'mak_';

/** Keys for the sync API: generated, shown once, stored as a SHA-256 digest. */
export class AdminKeyService {
  constructor(
    private readonly store: Store,
    private readonly afterWrite: AfterWrite = async () => {},
  ) {}

  async create(
    name: string,
    scope: string,
    actor?: Actor,
  ): Promise<{ name: string; scope: string; key: string }> {
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw new ServiceError(
        'invalid_request',
        'A key name is 1 to 64 characters of letters, digits, dot, underscore, @ or hyphen.',
      );
    }
    if (typeof scope !== 'string' || !SCOPE.test(scope)) {
      throw new ServiceError(
        'invalid_request',
        'The scope must be "all" or "dispensary:ID", for example dispensary:3.',
      );
    }
    const dispensaryId = scopedDispensary(scope);
    if (dispensaryId !== undefined && !(await this.store.dispensaries.get(dispensaryId))) {
      throw new ServiceError(
        'not_found',
        `There is no dispensary ${dispensaryId}. List them with: npx menu-api dispensary list`,
      );
    }
    const key = `${KEY_PREFIX}${generateSecret(32)}`;
    try {
      await this.store.adminKeys.create(name, scope, secretDigest(key), actor);
    } catch (error) {
      if (error instanceof ConflictError)
        throw new ServiceError('conflict', `${error.message}. Choose another name.`);
      throw error;
    }
    await this.afterWrite();
    return { name, scope, key };
  }

  async list(): Promise<Omit<AdminKey, 'id'>[]> {
    const keys = await this.store.adminKeys.list();
    return keys.map(({ name, scope, createdAt, revokedAt, lastUsedAt }) => ({
      name,
      scope,
      createdAt,
      revokedAt,
      lastUsedAt,
    }));
  }

  async revoke(name: string, actor?: Actor): Promise<void> {
    if (!(await this.store.adminKeys.revoke(name, actor))) {
      throw new ServiceError(
        'not_found',
        `There is no active admin key named ${name}. List them with: npx menu-api admin-key list`,
      );
    }
    await this.afterWrite();
  }
}

/** The dispensary a scope is limited to, or undefined for `all`. */
export function scopedDispensary(scope: string): number | undefined {
  return scope.startsWith('dispensary:') ? Number(scope.slice('dispensary:'.length)) : undefined;
}

/** Resolves bearer keys to admin keys, remembering hits until an admin key changes anywhere. */
export class AdminKeyVerifier {
  private readonly keys = new Map<string, AdminKey>();

  constructor(
    private readonly store: Store,
    feed: ChangeFeed,
  ) {
    feed.subscribe((change) => {
      if (change.kind === 'admin_key') this.keys.clear();
    });
  }

  async verify(key: string): Promise<AdminKey | undefined> {
    const digest = secretDigest(key);
    const known = this.keys.get(digest);
    if (known) {
      this.noteUse(known.id);
      return known;
    }
    const found = await this.store.adminKeys.find(digest);
    if (found) {
      this.keys.set(digest, found);
      this.noteUse(found.id);
    }
    return found;
  }

  private readonly lastNoted = new Map<number, number>();

  /** Records last use at most once a minute per key, off the request's path. */
  private noteUse(id: number): void {
    const now = Date.now();
    if ((this.lastNoted.get(id) ?? 0) > now - 60_000) return;
    this.lastNoted.set(id, now);
    this.store.adminKeys.touch(id, new Date(now).toISOString()).catch(() => {
      // Last use is informational; a failed write is retried on a later request.
      this.lastNoted.delete(id);
    });
  }
}
