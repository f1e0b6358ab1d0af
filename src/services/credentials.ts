import { DEFAULT_SCRYPT_COST, hashPassword, type ScryptCost } from '../auth/password.js';
import { generateSecret } from '../auth/secrets.js';
import { ConflictError, type Store } from '../store/store.js';
import type { AfterWrite } from './dispensaries.js';
import { ServiceError } from './errors.js';

export interface CredentialSummary {
  username: string;
  createdAt: string;
  revokedAt: string | null;
}

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** Issues API credentials. Passwords are generated, returned once, and stored as scrypt hashes. */
export class CredentialService {
  constructor(
    private readonly store: Store,
    private readonly afterWrite: AfterWrite = async () => {},
    private readonly scryptCost: ScryptCost = DEFAULT_SCRYPT_COST,
  ) {}

  async issue(username: string): Promise<{ username: string; password: string }> {
    return this.issueWithPassword(username, generateSecret());
  }

  /** Issues a credential with a caller-chosen password (the demo's well-known one). */
  async issueWithPassword(
    username: string,
    password: string,
  ): Promise<{ username: string; password: string }> {
    if (!USERNAME.test(username)) {
      throw new ServiceError(
        'invalid_request',
        'A username is 1 to 64 characters of letters, digits, dot, underscore, @ or hyphen.',
      );
    }
    try {
      await this.store.createCredential(username, await hashPassword(password, this.scryptCost));
    } catch (error) {
      if (error instanceof ConflictError)
        throw new ServiceError('conflict', `${error.message}. Choose another username.`);
      throw error;
    }
    await this.afterWrite();
    return { username, password };
  }

  async list(): Promise<CredentialSummary[]> {
    const credentials = await this.store.listCredentials();
    return credentials.map(({ username, createdAt, revokedAt }) => ({ username, createdAt, revokedAt }));
  }

  exists(username: string): Promise<boolean> {
    return this.store.findCredential(username).then((credential) => credential !== undefined);
  }

  async revoke(username: string): Promise<void> {
    if (!(await this.store.revokeCredential(username))) {
      throw new ServiceError(
        'not_found',
        `There is no active credential named ${username}. List them with: menu-api credential list`,
      );
    }
    await this.afterWrite();
  }
}
