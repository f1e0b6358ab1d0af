import { CredentialService } from '../../services/credentials.js';
import { credentialRecord } from '../../services/records.js';
import type { Store } from '../../store/store.js';
import { parseId, withService } from '../context.js';
import type { CommonOptions } from '../options.js';
import { emit, table } from '../output.js';

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

export async function list(options: CommonOptions): Promise<void> {
  await withService(
    options,
    credentialService,
    async (credentials) => {
      const all = await credentials.list();
      const rows = all.map((c) => [
        c.username,
        c.createdAt,
        c.lastUsedAt ?? 'never',
        c.expiresAt ?? 'never',
        c.dispensaryIds?.join(',') ?? 'all',
        c.revokedAt ?? 'active',
      ]);
      emit(
        options,
        all.map(credentialRecord),
        all.length === 0
          ? 'No credentials yet. Issue one with: npx menu-api credential issue --username NAME'
          : table(['USERNAME', 'CREATED', 'LAST USED', 'EXPIRES', 'DISPENSARIES', 'REVOKED'], rows),
      );
    },
    'read',
  );
}

export async function revoke(username: string, options: CommonOptions): Promise<void> {
  await withService(options, credentialService, async (credentials) => {
    await credentials.revoke(username);
    emit(options, { username, revoked: true }, `Revoked credential ${username}.`);
  });
}
