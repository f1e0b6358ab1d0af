import type { AuditEntry, Store } from '../store/store.js';
import { ServiceError } from './errors.js';

export interface AuditListOptions {
  dispensaryId?: number;
  /** Any of these dispensaries only. */
  dispensaryIds?: readonly number[];
  actor?: string;
  /** An ISO 8601 / RFC 3339 time. */
  since?: string;
  /** An ISO 8601 / RFC 3339 time: entries before it only. */
  until?: string;
  limit?: number;
}

/** Reads the audit log that every write appends to. */
export class AuditService {
  constructor(private readonly store: Store) {}

  async list(options: AuditListOptions = {}): Promise<AuditEntry[]> {
    return this.store.audit.list({
      dispensaryId: options.dispensaryId,
      dispensaryIds: options.dispensaryIds,
      actor: options.actor,
      since: timeOf('since', options.since),
      until: timeOf('until', options.until),
      limit: options.limit ?? 1000,
    });
  }
}

function timeOf(name: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const time = Date.parse(text);
  if (Number.isNaN(time)) {
    throw new ServiceError(
      'invalid_request',
      `--${name} must be a time such as 2026-11-25T12:00:00Z, not "${text}".`,
    );
  }
  return new Date(time).toISOString();
}
