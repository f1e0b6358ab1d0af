import { AuditService } from '../../services/audit.js';
import { auditEntryRecord } from '../../services/records.js';
import type { Store } from '../../store/store.js';
import { parseId, withService } from '../context.js';
import type { CommonOptions } from '../options.js';
import { emit, table } from '../output.js';

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
      emit(
        options,
        entries.map(auditEntryRecord),
        entries.length === 0
          ? 'No audit entries match.'
          : table(
              ['AT', 'ACTOR', 'DISPENSARY', 'ACTION', 'DETAIL'],
              entries.map((entry) => [
                entry.at,
                entry.actor,
                entry.dispensaryId ?? '-',
                entry.action,
                JSON.stringify(entry.detail),
              ]),
            ),
      );
    },
    'read',
  );
}
