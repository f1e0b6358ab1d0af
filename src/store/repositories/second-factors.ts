import type { Transaction } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import type { Actor, SecondFactorRepository, StoredTotp } from '../store.js';
import { type ChangeRecord, now, type Writer } from '../write.js';

/** The audit entry of a second-factor change: the account's email and what happened, never a secret. */
async function factorChange(
  trx: Transaction<Database>,
  accountId: number,
  action: string,
  detail: Record<string, unknown> = {},
): Promise<ChangeRecord> {
  const account = await trx
    .selectFrom('accounts')
    .select('email')
    .where('id', '=', accountId)
    .executeTakeFirst();
  const email = account?.email ?? `#${accountId}`;
  return { kind: 'account', dispensaryId: null, subject: email, action, detail: { email, ...detail } };
}

export class SecondFactors implements SecondFactorRepository {
  constructor(
    private readonly dialect: Dialect,
    private readonly writer: Writer,
  ) {}

  async getTotp(accountId: number): Promise<StoredTotp | undefined> {
    const row = await this.dialect.db
      .selectFrom('account_totp')
      .select(['account_id', 'secret', 'confirmed_at', 'last_step'])
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return (
      row && {
        accountId: Number(row.account_id),
        sealedSecret: row.secret,
        confirmedAt: row.confirmed_at,
        lastStep: Number(row.last_step),
      }
    );
  }

  async startTotp(accountId: number, sealedSecret: string, at: string): Promise<boolean> {
    return this.dialect.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('account_totp')
        .select('confirmed_at')
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (existing?.confirmed_at) return false;
      await trx.deleteFrom('account_totp').where('account_id', '=', accountId).execute();
      await trx
        .insertInto('account_totp')
        .values({
          account_id: accountId,
          secret: sealedSecret,
          confirmed_at: null,
          last_step: 0,
          created_at: at,
        })
        .execute();
      return true;
    });
  }

  confirmTotp(accountId: number, step: number, recoveryDigests: string[], actor: Actor): Promise<boolean> {
    return this.writer.write({ actor }, async (trx) => {
      const updated = await trx
        .updateTable('account_totp')
        .set({ confirmed_at: now(), last_step: step })
        .where('account_id', '=', accountId)
        .where('confirmed_at', 'is', null)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return { result: false };
      await trx.deleteFrom('account_recovery_codes').where('account_id', '=', accountId).execute();
      await trx
        .insertInto('account_recovery_codes')
        .values(recoveryDigests.map((digest) => ({ digest, account_id: accountId, used_at: null })))
        .execute();
      return {
        result: true,
        change: await factorChange(trx, accountId, 'account.enable_totp', {
          recovery_codes: recoveryDigests.length,
        }),
      };
    });
  }

  async useStep(accountId: number, step: number): Promise<boolean> {
    const updated = await this.dialect.db
      .updateTable('account_totp')
      .set({ last_step: step })
      .where('account_id', '=', accountId)
      .where('last_step', '<', step)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  removeTotp(accountId: number, actor: Actor): Promise<boolean> {
    return this.writer.write({ actor }, async (trx) => {
      const deleted = await trx
        .deleteFrom('account_totp')
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      await trx.deleteFrom('account_recovery_codes').where('account_id', '=', accountId).execute();
      if (Number(deleted.numDeletedRows) === 0) return { result: false };
      return { result: true, change: await factorChange(trx, accountId, 'account.disable_totp') };
    });
  }

  useRecoveryCode(accountId: number, digest: string, at: string, actor: Actor): Promise<boolean> {
    return this.writer.write({ actor }, async (trx) => {
      const used = await trx
        .updateTable('account_recovery_codes')
        .set({ used_at: at })
        .where('digest', '=', digest)
        .where('account_id', '=', accountId)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(used.numUpdatedRows) === 0) return { result: false };
      const left = await this.countUnused(trx, accountId);
      return {
        result: true,
        change: await factorChange(trx, accountId, 'account.use_recovery_code', {
          recovery_codes_left: left,
        }),
      };
    });
  }

  unusedRecoveryCodes(accountId: number): Promise<number> {
    return this.countUnused(this.dialect.db, accountId);
  }

  async savePending(digest: string, accountId: number, expiresAt: string): Promise<void> {
    await this.dialect.db.deleteFrom('pending_sign_ins').where('expires_at', '<=', now()).execute();
    await this.dialect.db
      .insertInto('pending_sign_ins')
      .values({ digest, account_id: accountId, expires_at: expiresAt })
      .execute();
  }

  async pendingAccount(digest: string, at: string): Promise<number | undefined> {
    const row = await this.dialect.db
      .selectFrom('pending_sign_ins')
      .select('account_id')
      .where('digest', '=', digest)
      .where('expires_at', '>', at)
      .executeTakeFirst();
    return row && Number(row.account_id);
  }

  async endPending(digest: string): Promise<boolean> {
    const deleted = await this.dialect.db
      .deleteFrom('pending_sign_ins')
      .where('digest', '=', digest)
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  private async countUnused(db: Pick<Dialect['db'], 'selectFrom'>, accountId: number): Promise<number> {
    const row = await db
      .selectFrom('account_recovery_codes')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }
}
