import { CredentialVerifier, type VerifiedCredential } from '../auth/credential-verifier.js';
import type { ScryptCost } from '../auth/password.js';
import { secretDigest } from '../auth/secrets.js';
import type { Dispensary, Store } from '../store/store.js';
import type { ChangeFeed } from './change-feed.js';
import { ServiceError } from './errors.js';

export interface AccessRequest {
  username: string;
  password: string;
  token: string;
}

export interface Granted {
  credential: VerifiedCredential;
  dispensary: Dispensary;
}

export interface AccessOptions {
  rememberCredentialsMs: number;
  scryptCost?: ScryptCost;
}

/**
 * Decides who may read which dispensary: credentials first (401), then the dispensary token (403).
 * Both lookups are remembered in memory and dropped on the matching change notice.
 */
export class AccessService {
  private readonly verifier: CredentialVerifier;
  /** Token digest to dispensary, only for tokens that matched: misses are never stored. */
  private readonly dispensaries = new Map<string, Dispensary>();

  constructor(
    private readonly store: Store,
    feed: ChangeFeed,
    options: AccessOptions,
  ) {
    this.verifier = new CredentialVerifier(store, {
      rememberMs: options.rememberCredentialsMs,
      scryptCost: options.scryptCost,
    });
    feed.subscribe((change) => {
      if (change.kind === 'credential' && change.subject !== null) this.verifier.forget(change.subject);
      if (change.kind === 'dispensary') this.forgetDispensary(change.dispensaryId);
    });
  }

  async grant(request: AccessRequest): Promise<Granted> {
    const credential = await this.verifier.verify(request.username, request.password);
    if (!credential) {
      throw new ServiceError(
        'invalid_credentials',
        'The username or password is wrong. Check the credential the operator issued to you.',
      );
    }
    const dispensary = await this.dispensaryFor(request.token);
    if (!dispensary) {
      throw new ServiceError(
        'invalid_token',
        'The dispensary token is not valid (unknown, or replaced by a newer one). Ask the dispensary for its current token.',
      );
    }
    return { credential, dispensary };
  }

  private async dispensaryFor(token: string): Promise<Dispensary | undefined> {
    const digest = secretDigest(token);
    const known = this.dispensaries.get(digest);
    if (known) return known;
    const found = await this.store.findDispensaryByTokenDigest(digest);
    if (found) this.dispensaries.set(digest, found);
    return found;
  }

  private forgetDispensary(id: number | null): void {
    for (const [digest, dispensary] of this.dispensaries) {
      if (id === null || dispensary.id === id) this.dispensaries.delete(digest);
    }
  }
}
