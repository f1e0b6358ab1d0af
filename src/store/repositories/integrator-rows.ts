import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.js';
import type { AccessRequest, AccessRequestStatus, Integrator, IntegratorStatus } from '../store.js';
import type { ChangeRecord } from '../write.js';

/** The integrators repository's rows and the queries it builds more than once (its class holds the commands). */

export const COLUMNS = [
  'integrators.account_id',
  'accounts.email',
  'integrators.name',
  'integrators.company',
  'integrators.building',
  'integrators.status',
  'integrators.credential_username',
  'integrators.created_at',
  'integrators.updated_at',
] as const;

export interface IntegratorRow {
  account_id: number;
  email: string;
  name: string;
  company: string;
  building: string;
  status: string;
  credential_username: string | null;
  created_at: string;
  updated_at: string;
}

export function toIntegrator(row: IntegratorRow): Integrator {
  return {
    accountId: Number(row.account_id),
    email: row.email,
    name: row.name,
    company: row.company,
    building: row.building,
    status: row.status as IntegratorStatus,
    credentialUsername: row.credential_username,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toAccessRequest(row: {
  id: number;
  account_id: number;
  email: string;
  company: string;
  building: string;
  dispensary_id: number;
  dispensary_name: string;
  status: string;
  token_digest: string | null;
  decided_by: string | null;
  created_at: string;
  updated_at: string;
}): AccessRequest {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    email: row.email,
    company: row.company,
    building: row.building,
    dispensaryId: Number(row.dispensary_id),
    dispensaryName: row.dispensary_name,
    status: row.status as AccessRequestStatus,
    hasToken: row.token_digest !== null,
    decidedBy: row.decided_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The change notice and audit entry of an integrator's registration: who, never a secret. */
export function integratorChange(
  action: string,
  email: string,
  detail: Record<string, unknown> = {},
): ChangeRecord {
  return { kind: 'account', dispensaryId: null, subject: email, action, detail: { email, ...detail } };
}

/** Access requests with the integrator's email, company and project and the dispensary's name. */
export function accessQuery(db: Kysely<Database>) {
  return db
    .selectFrom('integrator_access as r')
    .innerJoin('accounts as a', 'a.id', 'r.account_id')
    .innerJoin('integrators as i', 'i.account_id', 'r.account_id')
    .innerJoin('dispensaries as d', 'd.id', 'r.dispensary_id')
    .select([
      'r.id',
      'r.account_id',
      'a.email',
      'i.company',
      'i.building',
      'r.dispensary_id',
      'd.name as dispensary_name',
      'r.status',
      'r.token_digest',
      'r.decided_by',
      'r.created_at',
      'r.updated_at',
    ]);
}

/** The integrator of `accountId`, read inside a write's transaction. */
export async function integratorIn(trx: Transaction<Database>, accountId: number): Promise<Integrator> {
  const row = await trx
    .selectFrom('integrators')
    .innerJoin('accounts', 'accounts.id', 'integrators.account_id')
    .select(COLUMNS)
    .where('integrators.account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return toIntegrator(row);
}

/** Adds the dispensary to, or takes it from, the dispensaries the credential may read. */
export async function setCredentialReach(
  trx: Transaction<Database>,
  username: string,
  dispensaryId: number,
  reaches: boolean,
): Promise<void> {
  const credential = await trx
    .selectFrom('credentials')
    .select('dispensary_ids')
    .where('username', '=', username)
    .executeTakeFirst();
  const ids = new Set<number>(
    credential?.dispensary_ids ? (JSON.parse(credential.dispensary_ids) as number[]) : [],
  );
  if (reaches) ids.add(dispensaryId);
  else ids.delete(dispensaryId);
  await trx
    .updateTable('credentials')
    .set({ dispensary_ids: JSON.stringify([...ids].sort((a, b) => a - b)) })
    .where('username', '=', username)
    .execute();
}
