import type { Kysely } from 'kysely';
import { toAuditEntry } from '../rows.js';
import type { Database } from '../schema.js';
import type { AuditEntry, AuditQuery, AuditRepository } from '../store.js';

/** Reads the audit log; entries are written by Writer, with the write they describe. */
export class AuditLog implements AuditRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    let select = this.db.selectFrom('audit_log').selectAll();
    if (query.dispensaryId !== undefined) select = select.where('dispensary_id', '=', query.dispensaryId);
    if (query.dispensaryIds !== undefined) {
      if (query.dispensaryIds.length === 0) return [];
      select = select.where('dispensary_id', 'in', query.dispensaryIds);
    }
    if (query.actor !== undefined) select = select.where('actor', '=', query.actor);
    if (query.since !== undefined) select = select.where('at', '>', query.since);
    if (query.until !== undefined) select = select.where('at', '<', query.until);
    const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
    return rows.reverse().map(toAuditEntry);
  }
}
