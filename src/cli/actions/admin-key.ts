import { AdminKeyService } from '../../services/admin-keys.js';
import { adminKeyRecord } from '../../services/records.js';
import type { Store } from '../../store/store.js';
import { listAction, withService } from '../context.js';
import type { CommonOptions } from '../options.js';
import { emit } from '../output.js';

const adminKeyService = (store: Store) => new AdminKeyService(store);

export async function create(options: CommonOptions & { scope: string; name: string }): Promise<void> {
  await withService(options, adminKeyService, async (adminKeys) => {
    const created = await adminKeys.create(options.name, options.scope);
    emit(
      options,
      created,
      `Created admin key ${created.name} (scope ${created.scope}).\nKey (shown once): ${created.key}`,
    );
  });
}

export const list = listAction(adminKeyService, (adminKeys) => adminKeys.list(), {
  record: adminKeyRecord,
  empty: 'No admin keys yet. Create one with: npx menu-api admin-key create --scope all --name NAME',
  headers: ['NAME', 'SCOPE', 'CREATED', 'LAST USED', 'REVOKED'],
  row: (key) => [
    key.name,
    key.scope,
    key.createdAt,
    key.lastUsedAt ?? 'never',
    key.revokedAt ? `yes, ${key.revokedAt}` : 'no',
  ],
});

export async function revoke(name: string, options: CommonOptions): Promise<void> {
  await withService(options, adminKeyService, async (adminKeys) => {
    await adminKeys.revoke(name);
    emit(options, { name, revoked: true }, `Revoked admin key ${name}.`);
  });
}
