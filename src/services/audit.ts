import type { AuditEntry, Store } from '../store/store.js';
import { ServiceError } from './errors.js';

export interface AuditListOptions {
  dispensaryId?: number;
  /** An ISO 8601 / RFC 3339 time. */
  since?: string;
  limit?: number;
}

/** Reads the audit log that every write appends to. */
export class AuditService {
  constructor(private readonly store: Store) {}

  async list(options: AuditListOptions = {}): Promise<AuditEntry[]> {
    let since: string | undefined;
    if (options.since !== undefined) {
      const time = Date.parse(options.since);
      if (Number.isNaN(time)) {
        throw new ServiceError(
          'invalid_request',
          `--since must be a time such as 2026-11-25T12:00:00Z, not "${options.since}".`,
        );
      }
      since = new Date(time).toISOString();
    }
    return this.store.audit.list({ dispensaryId: options.dispensaryId, since, limit: options.limit ?? 1000 });
  }
}
