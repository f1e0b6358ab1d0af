import { CredentialService } from '../../services/credentials.js';
import { credentialRecord } from '../../services/records.js';
import type { Store } from '../../store/store.js';
import { listAction, parseId, withService } from '../context.js';
import type { CommonOptions } from '../options.js';
import { emit } from '../output.js';

const credentialService = (store: Store) => new CredentialService(store);

export async function issue(
  options: CommonOptions & { username: string; expiresAt?: string; dispensaries?: string },
): Promise<void> {
  await withService(options, credentialService, async (credentials) => {
    const issued = await credentials.issue(options.username, undefined, {
      expiresAt: options.expiresAt,
      dispensaryIds: options.dispensaries?.split(',').map((id) => parseId(id.trim(), 'A dispensary id')),
    });
    emit(
      options,
      issued,
      `Issued credential ${issued.username}.\nPassword (shown once, send it securely): ${issued.password}`,
    );
  });
}

export const list = listAction(credentialService, (credentials) => credentials.list(), {
  record: credentialRecord,
  empty: 'No credentials yet. Issue one with: npx menu-api credential issue --username NAME',
  headers: ['USERNAME', 'CREATED', 'LAST USED', 'EXPIRES', 'DISPENSARIES', 'REVOKED'],
  row: (c) => [
    c.username,
    c.createdAt,
    c.lastUsedAt ?? 'never',
    c.expiresAt ?? 'never',
    c.dispensaryIds === null ? 'all' : c.dispensaryIds.join(',') || 'none (an integrator not given any yet)',
    c.revokedAt ?? 'active',
  ],
});

export async function revoke(username: string, options: CommonOptions): Promise<void> {
  await withService(options, credentialService, async (credentials) => {
    await credentials.revoke(username);
    emit(options, { username, revoked: true }, `Revoked credential ${username}.`);
  });
}
