import type { Dialect } from '../dialect.js';
import type {
  AccessRequest,
  Account,
  Actor,
  Integrator,
  IntegratorProfile,
  IntegratorRepository,
  NewIntegratorCredential,
} from '../store.js';
import { now, OPERATOR, type Writer } from '../write.js';
import { insertAccount } from './accounts.js';
import {
  accessQuery,
  COLUMNS,
  integratorChange,
  integratorIn,
  setCredentialReach,
  toAccessRequest,
  toIntegrator,
} from './integrator-rows.js';

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
        const account = await insertAccount(trx, email, { role: 'integrator', dispensaryIds: [] }, at);
        const accountId = account.id;
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
        return {
          result: account,
          change: integratorChange('integrator.register', email, { company: profile.company }),
        };
      },
    );
  }

  async renewUnconfirmed(
    email: string,
    confirm: { digest: string; expiresAt: string },
    again?: { profile: IntegratorProfile; passwordDigest: string },
    actor: Actor = `account:${email}`,
  ): Promise<Account | undefined> {
    return this.writer.write({ actor }, async (trx) => {
      const row = await trx
        .selectFrom('accounts')
        .innerJoin('integrators', 'integrators.account_id', 'accounts.id')
        .select(['accounts.id', 'accounts.created_at', 'integrators.company'])
        .where('accounts.email', '=', email)
        .where('integrators.status', '=', 'unconfirmed')
        .executeTakeFirst();
      if (!row) return { result: undefined };
      const at = now();
      await trx
        .updateTable('integrators')
        .set({
          ...again?.profile,
          ...(again ? { pending_password: again.passwordDigest } : {}),
          confirm_digest: confirm.digest,
          confirm_expires_at: confirm.expiresAt,
          updated_at: at,
        })
        .where('account_id', '=', row.id)
        .where('status', '=', 'unconfirmed')
        .execute();
      const account: Account = {
        id: Number(row.id),
        email,
        role: 'integrator',
        dispensaryIds: [],
        active: false,
        createdAt: row.created_at,
        updatedAt: at,
      };
      return {
        result: account,
        change: again
          ? integratorChange('integrator.register', email, { company: again.profile.company, again: true })
          : integratorChange('integrator.confirm-link', email, { company: row.company }),
      };
    });
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
      const row = await integratorIn(trx, accountId);
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
      const row = await integratorIn(trx, accountId);
      return { result: row, change: integratorChange('integrator.decline', row.email) };
    });
  }

  async setCredentialPassword(accountId: number, passwordHash: string): Promise<string | undefined> {
    const integrator = await this.get(accountId);
    const username = integrator?.status === 'approved' ? integrator.credentialUsername : null;
    if (!integrator || !username) return undefined;
    return this.writer.write({ actor: `account:${integrator.email}` }, async (trx) => {
      const changed = await trx
        .updateTable('credentials')
        .set({ password_hash: passwordHash })
        .where('username', '=', username)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(changed.numUpdatedRows) === 0) return { result: undefined };
      return {
        result: username,
        // A credential change: every process forgets the password it remembered for it.
        change: {
          kind: 'credential',
          dispensaryId: null,
          subject: username,
          action: 'credential.rotate_password',
          detail: { username },
        },
      };
    });
  }

  async requestAccess(accountId: number, dispensaryId: number): Promise<AccessRequest> {
    const integrator = await this.get(accountId);
    if (!integrator) throw new Error(`no integrator ${accountId}`);
    const id = await this.writer.write(
      { actor: `account:${integrator.email}`, conflict: 'this integrator asked for this dispensary before' },
      async (trx) => {
        const at = now();
        const row = await trx
          .insertInto('integrator_access')
          .values({
            account_id: accountId,
            dispensary_id: dispensaryId,
            status: 'waiting',
            decided_by: null,
            token_digest: null,
            created_at: at,
            updated_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return {
          result: Number(row.id),
          change: {
            kind: 'account',
            dispensaryId,
            subject: integrator.email,
            action: 'integrator.request_access',
            detail: { email: integrator.email, dispensary_id: dispensaryId },
          },
        };
      },
    );
    return (await this.getAccessRequest(id))!;
  }

  async accessRequests(filter: {
    accountId?: number;
    dispensaryIds?: readonly number[];
  }): Promise<AccessRequest[]> {
    let query = accessQuery(this.dialect.db);
    if (filter.accountId !== undefined) query = query.where('r.account_id', '=', filter.accountId);
    if (filter.dispensaryIds !== undefined) {
      if (filter.dispensaryIds.length === 0) return [];
      query = query.where('r.dispensary_id', 'in', [...filter.dispensaryIds]);
    }
    return (await query.orderBy('r.id').execute()).map(toAccessRequest);
  }

  async getAccessRequest(id: number): Promise<AccessRequest | undefined> {
    const row = await accessQuery(this.dialect.db).where('r.id', '=', id).executeTakeFirst();
    return row && toAccessRequest(row);
  }

  async decideAccess(
    id: number,
    decision: 'approved' | 'declined',
    actor: Actor,
  ): Promise<AccessRequest | undefined> {
    const request = await this.getAccessRequest(id);
    // Approve what waits; decline what waits, or withdraw what was approved.
    const from = decision === 'approved' ? ['waiting'] : ['waiting', 'approved'];
    if (!request || !from.includes(request.status)) return undefined;
    const username = (await this.get(request.accountId))?.credentialUsername ?? null;
    const decided = await this.writer.write({ actor }, async (trx) => {
      const claimed = await trx
        .updateTable('integrator_access')
        // A withdrawn access's token stops working with it.
        .set({ status: decision, decided_by: actor, token_digest: null, updated_at: now() })
        .where('id', '=', id)
        .where('status', '=', request.status)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) return { result: false };
      const detail = { email: request.email, dispensary_id: request.dispensaryId, decision };
      const changesReach = decision === 'approved' || request.status === 'approved';
      if (!changesReach || username === null) {
        return {
          result: true,
          change: {
            kind: 'account' as const,
            dispensaryId: request.dispensaryId,
            subject: request.email,
            action: 'integrator.decide_access',
            detail,
          },
        };
      }
      await setCredentialReach(trx, username, request.dispensaryId, decision === 'approved');
      // A credential change: every process forgets the dispensaries it remembered the credential may read.
      return {
        result: true,
        change: {
          kind: 'credential' as const,
          dispensaryId: request.dispensaryId,
          subject: username,
          action: 'integrator.decide_access',
          detail: { ...detail, credential: username },
        },
      };
    });
    return decided ? this.getAccessRequest(id) : undefined;
  }

  setAccessToken(id: number, digest: string, actor: Actor): Promise<boolean> {
    return this.writer.write({ actor }, async (trx) => {
      const row = await trx
        .selectFrom('integrator_access')
        .innerJoin('accounts', 'accounts.id', 'integrator_access.account_id')
        .select(['integrator_access.dispensary_id', 'accounts.email'])
        .where('integrator_access.id', '=', id)
        .where('integrator_access.status', '=', 'approved')
        .executeTakeFirst();
      if (!row) return { result: false };
      await trx
        .updateTable('integrator_access')
        .set({ token_digest: digest, updated_at: now() })
        .where('id', '=', id)
        .execute();
      return {
        result: true,
        // A dispensary change: every process forgets the token it remembered for it (an earlier one).
        change: {
          kind: 'dispensary',
          dispensaryId: Number(row.dispensary_id),
          subject: row.email,
          action: 'integrator.issue_token',
          detail: { email: row.email, dispensary_id: Number(row.dispensary_id) },
        },
      };
    });
  }
}
