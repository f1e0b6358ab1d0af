import type { Dialect } from '../dialect.js';
import type {
  Account,
  Actor,
  Integrator,
  IntegratorProfile,
  IntegratorRepository,
  IntegratorStatus,
  NewIntegratorCredential,
} from '../store.js';
import { type ChangeRecord, now, OPERATOR, type Writer } from '../write.js';

const COLUMNS = [
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

interface IntegratorRow {
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

function toIntegrator(row: IntegratorRow): Integrator {
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

/** The change notice and audit entry of an integrator's registration: who, never a secret. */
function integratorChange(action: string, email: string, detail: Record<string, unknown> = {}): ChangeRecord {
  return { kind: 'account', dispensaryId: null, subject: email, action, detail: { email, ...detail } };
}

export class Integrators implements IntegratorRepository {
  constructor(
    private readonly dialect: Dialect,
    private readonly writer: Writer,
  ) {}

  register(
    email: string,
    profile: IntegratorProfile,
    passwordDigest: string,
    confirm: { digest: string; expiresAt: string },
  ): Promise<Account> {
    // The registrant acts for itself: the audit log names it.
    const actor = `account:${email}`;
    return this.writer.write(
      { actor, conflict: `an account with the email ${email} exists` },
      async (trx) => {
        const at = now();
        const row = await trx
          .insertInto('accounts')
          .values({
            email,
            password_digest: null,
            role: 'integrator',
            dispensary_ids: '[]',
            created_at: at,
            updated_at: at,
          })
          .returning(['id', 'created_at', 'updated_at'])
          .executeTakeFirstOrThrow();
        const accountId = Number(row.id);
        await trx
          .insertInto('integrators')
          .values({
            account_id: accountId,
            ...profile,
            status: 'unconfirmed',
            pending_password: passwordDigest,
            confirm_digest: confirm.digest,
            confirm_expires_at: confirm.expiresAt,
            credential_username: null,
            created_at: at,
            updated_at: at,
          })
          .execute();
        const account: Account = {
          id: accountId,
          email,
          role: 'integrator',
          dispensaryIds: [],
          active: false,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        };
        return {
          result: account,
          change: integratorChange('integrator.register', email, { company: profile.company }),
        };
      },
    );
  }

  async confirm(digest: string, at: string): Promise<Integrator | undefined> {
    const found = await this.dialect.db
      .selectFrom('integrators')
      .innerJoin('accounts', 'accounts.id', 'integrators.account_id')
      .select(COLUMNS)
      .where('integrators.confirm_digest', '=', digest)
      .where('integrators.confirm_expires_at', '>', at)
      .executeTakeFirst();
    if (!found) return undefined;
    return this.writer.write({ actor: `account:${found.email}` }, async (trx) => {
      // Clearing the digest is the claim: of two uses at once, only the one that cleared it goes on.
      const claimed = await trx
        .updateTable('integrators')
        .set({ status: 'waiting', confirm_digest: null, confirm_expires_at: null, updated_at: now() })
        .where('confirm_digest', '=', digest)
        .where('status', '=', 'unconfirmed')
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) return { result: undefined };
      return {
        result: { ...toIntegrator(found), status: 'waiting' as const },
        change: integratorChange('integrator.confirm', found.email),
      };
    });
  }

  async get(accountId: number): Promise<Integrator | undefined> {
    const row = await this.dialect.db
      .selectFrom('integrators')
      .innerJoin('accounts', 'accounts.id', 'integrators.account_id')
      .select(COLUMNS)
      .where('integrators.account_id', '=', accountId)
      .executeTakeFirst();
    return row && toIntegrator(row);
  }

  async list(): Promise<Integrator[]> {
    const rows = await this.dialect.db
      .selectFrom('integrators')
      .innerJoin('accounts', 'accounts.id', 'integrators.account_id')
      .select(COLUMNS)
      .orderBy('integrators.account_id')
      .execute();
    return rows.map(toIntegrator);
  }

  approve(
    accountId: number,
    credential: NewIntegratorCredential,
    actor: Actor = OPERATOR,
  ): Promise<Integrator | undefined> {
    const conflict = `a credential named ${credential.username} exists (usernames are never reused, even after revoke)`;
    return this.writer.write({ actor, conflict }, async (trx) => {
      const waiting = await trx
        .selectFrom('integrators')
        .select('pending_password')
        .where('account_id', '=', accountId)
        .where('status', '=', 'waiting')
        .executeTakeFirst();
      if (!waiting?.pending_password) return { result: undefined };
      const at = now();
      await trx
        .insertInto('credentials')
        .values({
          username: credential.username,
          password_hash: credential.passwordHash,
          created_at: at,
          revoked_at: null,
          expires_at: null,
          last_used_at: null,
          // Reads no dispensary until one of its access requests is approved.
          dispensary_ids: '[]',
        })
        .execute();
      await trx
        .updateTable('accounts')
        .set({ password_digest: waiting.pending_password, updated_at: at })
        .where('id', '=', accountId)
        .execute();
      await trx
        .updateTable('integrators')
        .set({
          status: 'approved',
          pending_password: null,
          credential_username: credential.username,
          updated_at: at,
        })
        .where('account_id', '=', accountId)
        .execute();
      const row = await this.selectIn(trx, accountId);
      return {
        result: row,
        change: integratorChange('integrator.approve', row.email, { credential: credential.username }),
      };
    });
  }

  decline(accountId: number, actor: Actor = OPERATOR): Promise<Integrator | undefined> {
    return this.writer.write({ actor }, async (trx) => {
      const declined = await trx
        .updateTable('integrators')
        .set({ status: 'declined', pending_password: null, updated_at: now() })
        .where('account_id', '=', accountId)
        .where('status', '=', 'waiting')
        .executeTakeFirst();
      if (Number(declined.numUpdatedRows) === 0) return { result: undefined };
      const row = await this.selectIn(trx, accountId);
      return { result: row, change: integratorChange('integrator.decline', row.email) };
    });
  }

  private async selectIn(
    trx: Parameters<Parameters<Writer['write']>[1]>[0],
    accountId: number,
  ): Promise<Integrator> {
    const row = await trx
      .selectFrom('integrators')
      .innerJoin('accounts', 'accounts.id', 'integrators.account_id')
      .select(COLUMNS)
      .where('integrators.account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return toIntegrator(row);
  }
}
