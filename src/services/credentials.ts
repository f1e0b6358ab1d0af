import { DEFAULT_SCRYPT_COST, hashPassword, type ScryptCost } from '../auth/password.js';
import { generateSecret } from '../auth/secrets.js';
import { type Actor, ConflictError, type CredentialLimits, type Store } from '../store/store.js';
import type { AfterWrite } from './dispensaries.js';
import { ServiceError } from './errors.js';

export interface CredentialSummary {
  username: string;
  createdAt: string;
  revokedAt: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  dispensaryIds: number[] | null;
}

/** Optional limits of a new credential, as callers give them (validated here). */
export interface CredentialLimitsInput {
  /** RFC 3339 time after which the credential stops working. */
  expiresAt?: unknown;
  /** The only dispensaries the credential may read. */
  dispensaryIds?: unknown;
}

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** Issues API credentials. Passwords are generated, returned once, and stored as scrypt hashes. */
export class CredentialService {
  constructor(
    private readonly store: Store,
    private readonly afterWrite: AfterWrite = async () => {},
    private readonly scryptCost: ScryptCost = DEFAULT_SCRYPT_COST,
  ) {}

  async issue(
    username: string,
    actor?: Actor,
    limits: CredentialLimitsInput = {},
  ): Promise<{ username: string; password: string }> {
    return this.issueWithPassword(username, generateSecret(), actor, limits);
  }

  /** Issues a credential with a caller-chosen password (the demo's well-known one). */
  async issueWithPassword(
    username: string,
    password: string,
    actor?: Actor,
    limits: CredentialLimitsInput = {},
  ): Promise<{ username: string; password: string }> {
    if (typeof username !== 'string' || !USERNAME.test(username)) {
      throw new ServiceError(
        'invalid_request',
        'A username is 1 to 64 characters of letters, digits, dot, underscore, @ or hyphen.',
      );
    }
    const checked = await this.checkLimits(limits);
    try {
      await this.store.credentials.create(
        username,
        await hashPassword(password, this.scryptCost),
        actor,
        checked,
      );
    } catch (error) {
      if (error instanceof ConflictError)
        throw new ServiceError('conflict', `${error.message}. Choose another username.`);
      throw error;
    }
    await this.afterWrite();
    return { username, password };
  }

  /** An expiry must be a future time; an allowlist must name dispensaries that exist. */
  private async checkLimits(limits: CredentialLimitsInput): Promise<CredentialLimits> {
    let expiresAt: string | null = null;
    if (limits.expiresAt !== undefined && limits.expiresAt !== null) {
      const time = typeof limits.expiresAt === 'string' ? Date.parse(limits.expiresAt) : Number.NaN;
      if (Number.isNaN(time) || time <= Date.now()) {
        throw new ServiceError(
          'invalid_request',
          'expires_at must be a future time such as 2027-01-01T00:00:00Z.',
        );
      }
      expiresAt = new Date(time).toISOString();
    }
    let dispensaryIds: number[] | null = null;
    if (limits.dispensaryIds !== undefined && limits.dispensaryIds !== null) {
      const ids = limits.dispensaryIds;
      if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => Number.isInteger(id) && id > 0)) {
        throw new ServiceError('invalid_request', 'dispensaries must be a non-empty list of dispensary ids.');
      }
      for (const id of ids) {
        if (!(await this.store.dispensaries.get(id))) {
          throw new ServiceError(
            'not_found',
            `There is no dispensary ${id}. List them with: npx menu-api dispensary list`,
          );
        }
      }
      dispensaryIds = [...new Set(ids)].sort((a, b) => a - b);
    }
    return { expiresAt, dispensaryIds };
  }

  async list(): Promise<CredentialSummary[]> {
    const credentials = await this.store.credentials.list();
    return credentials.map(({ username, createdAt, revokedAt, expiresAt, lastUsedAt, dispensaryIds }) => ({
      username,
      createdAt,
      revokedAt,
      expiresAt,
      lastUsedAt,
      dispensaryIds,
    }));
  }

  exists(username: string): Promise<boolean> {
    return this.store.credentials.find(username).then((credential) => credential !== undefined);
  }

  async revoke(username: string, actor?: Actor): Promise<void> {
    if (!(await this.store.credentials.revoke(username, actor))) {
      throw new ServiceError(
        'not_found',
        `There is no active credential named ${username}. List them with: npx menu-api credential list`,
      );
    }
    await this.afterWrite();
  }
}
