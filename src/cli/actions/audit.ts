import { AuditService } from '../../services/audit.js';
import { auditEntryRecord } from '../../services/records.js';
import type { Store } from '../../store/store.js';
import { parseId, withService } from '../context.js';
import type { CommonOptions } from '../options.js';
import { emitList } from '../output.js';

const auditService = (store: Store) => new AuditService(store);

export async function audit(
  options: CommonOptions & { dispensary?: string; since?: string; limit: string },
): Promise<void> {
  await withService(
    options,
    auditService,
    async (audit) => {
      const entries = await audit.list({
        dispensaryId:
          options.dispensary === undefined ? undefined : parseId(options.dispensary, 'The dispensary id'),
        since: options.since,
        limit: parseId(options.limit, 'The limit'),
      });
      emitList(options, entries, {
        record: auditEntryRecord,
        empty: 'No audit entries match.',
        headers: ['AT', 'ACTOR', 'DISPENSARY', 'ACTION', 'DETAIL'],
        row: (entry) => [
          entry.at,
          entry.actor,
          entry.dispensaryId ?? '-',
          entry.action,
          JSON.stringify(entry.detail),
        ],
      });
    },
    'read',
  );
}
