export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  dispensaryId: number | null;
  action: string;
  detail: Record<string, unknown>;
}

export interface AuditQuery {
  dispensaryId?: number;
  /** Entries of any of these dispensaries only (a principal's reach). */
  dispensaryIds?: readonly number[];
  /** Exactly this actor (`cli`, `key:NAME`). */
  actor?: string;
  since?: string;
  /** Entries before this time only. */
  until?: string;
  limit: number;
}

/** Who changed what: written by every recorded write, read here. */
export interface AuditRepository {
  /** The latest `limit` entries that match, oldest first. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
}
