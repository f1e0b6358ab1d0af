import type { Selectable } from 'kysely';
import { type MenuType, STORE_INFO_FIELDS, type StoreInfo, type WeeklyHours } from '../domain/store-info.js';
import type { Database } from './schema.js';
import type { AdminKey, AuditEntry, Credential, Dispensary } from './store.js';

/** Mapping between table rows and the model. Numbers go through Number() because drivers differ on bigint. */

export const nullableNumber = (value: number | string | null): number | null =>
  value === null ? null : Number(value);

export function toDispensary(row: {
  id: number;
  name: string;
  created_at: string;
  updated_at: string;
}): Dispensary {
  return { id: Number(row.id), name: row.name, createdAt: row.created_at, updatedAt: row.updated_at };
}

export function toCredential(row: Selectable<Database['credentials']>): Credential {
  return {
    id: Number(row.id),
    username: row.username,
    passwordHash: row.password_hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    dispensaryIds: row.dispensary_ids === null ? null : (JSON.parse(row.dispensary_ids) as number[]),
  };
}

export function toAdminKey(row: {
  id: number;
  name: string;
  scope: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}): AdminKey {
  return {
    id: Number(row.id),
    name: row.name,
    scope: row.scope,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

export function toAuditEntry(row: Selectable<Database['audit_log']>): AuditEntry {
  return {
    id: Number(row.id),
    at: row.at,
    actor: row.actor,
    dispensaryId: row.dispensary_id === null ? null : Number(row.dispensary_id),
    action: row.action,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
  };
}

/** The store fields' columns are their wire names (STORE_INFO_FIELDS), then the time of the last change. */
type StoreFieldColumn = keyof typeof STORE_INFO_FIELDS;
export const STORE_INFO_COLUMNS: readonly (StoreFieldColumn | 'updated_at')[] = [
  ...(Object.keys(STORE_INFO_FIELDS) as StoreFieldColumn[]),
  'updated_at',
];

type StoreInfoRow = Pick<Database['dispensaries'], StoreFieldColumn | 'updated_at'>;

export function toStoreInfo(row: StoreInfoRow): StoreInfo {
  const info: Record<string, unknown> = {};
  for (const [column, key] of Object.entries(STORE_INFO_FIELDS)) info[key] = row[column as StoreFieldColumn];
  info.hours = row.hours === null ? null : (JSON.parse(row.hours) as WeeklyHours);
  info.menuTypes = row.menu_types === null ? null : (JSON.parse(row.menu_types) as MenuType[]);
  info.updatedAt = row.updated_at;
  return info as unknown as StoreInfo;
}

/** The store fields kept as JSON text. */
const JSON_COLUMNS = new Set(['hours', 'menu_types']);

/** Column values for the store fields a patch sets. */
export function storeInfoColumns(patch: Partial<StoreInfo>): Partial<StoreInfoRow> {
  const columns: Record<string, unknown> = {};
  for (const [column, key] of Object.entries(STORE_INFO_FIELDS)) {
    const value = patch[key];
    if (value !== undefined)
      columns[column] = JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value;
  }
  return columns as Partial<StoreInfoRow>;
}
