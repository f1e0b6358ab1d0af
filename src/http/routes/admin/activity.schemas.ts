import { Type } from 'typebox';
import { Nullable } from '../../../domain/nullable.js';
import { IdText, OptionalCount } from './shared.schemas.js';

/** The schemas of the audit log and usage routes (src/http/routes/admin/activity.ts). */

/** Example requests and answers for the OpenAPI document (each checked against its schema by a test). */
const EXAMPLES = {
  auditEntry: {
    id: 41,
    at: '2026-11-25T12:00:00.000Z',
    actor: 'key:operator',
    dispensary_id: 1,
    action: 'menu.stock',
    detail: { updated: 2 },
  },
  usage: { username: 'menu-board', hour: '2026-11-25T12:00:00.000Z', requests: 314 },
};

export const AuditQuerystring = Type.Object({
  dispensary_id: Type.Optional(IdText('Dispensary id')),
  actor: Type.Optional(Type.String({ maxLength: 100, description: 'cli, or key:NAME' })),
  since: Type.Optional(Type.String({ description: 'RFC 3339 time: entries after it.' })),
  until: Type.Optional(Type.String({ description: 'RFC 3339 time: entries before it.' })),
  limit: OptionalCount('^[1-9][0-9]{0,3}$', 9999, 'At most this many entries, the newest (default 500).'),
});

export const AuditEntryOut = Type.Object(
  {
    id: Type.Integer(),
    at: Type.String(),
    actor: Type.String(),
    dispensary_id: Nullable(Type.Integer()),
    action: Type.String(),
    detail: Type.Record(Type.String(), Type.Unknown()),
  },
  { title: 'AuditEntry', examples: [EXAMPLES.auditEntry] },
);

export const UsageQuerystring = Type.Object({
  days: OptionalCount('^([1-9]|[12][0-9]|3[01])$', 31, '1 to 31 days back (default 7).'),
});

export const UsageOut = Type.Object(
  {
    username: Type.String(),
    hour: Type.String({ description: "The hour's start (UTC)." }),
    requests: Type.Integer(),
  },
  { title: 'UsageCount', examples: [EXAMPLES.usage] },
);
