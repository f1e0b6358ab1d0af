import type { Transaction } from 'kysely';
import type { Dialect } from './dialect.js';
import { claimIn } from './idempotency-claim.js';
import type { Database } from './schema.js';
import { type Actor, type ChangeKind, ConflictError } from './store.js';

/** The actor of writes that name none: the operator at the command line. */
export const OPERATOR: Actor = 'cli';

export const now = (): string => new Date().toISOString();

/** What a write changed: the change notice caches act on, and the audit entry. */
export interface ChangeRecord {
  kind: ChangeKind;
  dispensaryId: number | null;
  /** For credential and admin key changes, the name. */
  subject?: string;
  action: string;
  detail: Record<string, unknown>;
}

/** A write's result, and what it changed; no `change` when it changed nothing (an unknown id, say). */
export interface Written<T> {
  result: T;
  change?: ChangeRecord;
}

/** The answer of a write to one row found by key: true with its change, or false and nothing recorded. */
export function foundIf(rows: number | bigint, change: ChangeRecord): Written<boolean> {
  return rows > 0 ? { result: true, change } : { result: false };
}

export interface WriteOptions {
  actor: Actor;
  /** Locks this dispensary first (see Dialect.lockDispensary), for writes to its menu or row. */
  lockDispensary?: number;
  /** The ConflictError message for a unique violation; without it, the violation is thrown as is. */
  conflict?: string;
}

/**
 * Every recorded write goes through here: one transaction, the dispensary lock when asked, and — when
 * the write changed something — its change notice and audit entry in that same transaction, so that
 * a failed write leaves neither. A unique violation becomes a ConflictError with the given message.
 */
export class Writer {
  constructor(private readonly dialect: Dialect) {}

  async write<T>(
    options: WriteOptions,
    work: (trx: Transaction<Database>) => Promise<Written<T>>,
  ): Promise<T> {
    try {
      let claimed: { claimed: boolean } | undefined;
      const result = await this.dialect.db.transaction().execute(async (trx) => {
        // An Idempotency-Key being served is claimed first, in this same transaction (idempotency-claim.ts).
        claimed = await claimIn(trx, (error) => this.dialect.isUniqueViolation(error));
        if (options.lockDispensary !== undefined) {
          await this.dialect.lockDispensary?.(trx, options.lockDispensary);
        }
        const { result, change } = await work(trx);
        if (change) await this.record(trx, options.actor, change);
        return result;
      });
      if (claimed) claimed.claimed = true;
      return result;
    } catch (error) {
      if (options.conflict !== undefined && this.dialect.isUniqueViolation(error)) {
        throw new ConflictError(options.conflict);
      }
      throw error;
    }
  }

  private async record(trx: Transaction<Database>, actor: Actor, change: ChangeRecord): Promise<void> {
    await this.dialect.beforeChange?.(trx);
    const at = now();
    await trx
      .insertInto('changes')
      .values({ kind: change.kind, dispensary_id: change.dispensaryId, subject: change.subject ?? null, at })
      .execute();
    await trx
      .insertInto('audit_log')
      .values({
        at,
        actor,
        dispensary_id: change.dispensaryId,
        action: change.action,
        detail: JSON.stringify(change.detail),
      })
      .execute();
    await this.dialect.afterChange?.(trx);
  }
}
