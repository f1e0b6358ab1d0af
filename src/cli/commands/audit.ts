import { Command } from 'commander';
import { commonOptions, jsonOption, parseId, withServices } from '../context.js';
import { emit, table } from '../output.js';

export function auditCommand(): Command {
  return new Command('audit')
    .description('show the audit log: every write, who made it, and counts (never a secret)')
    .option('--dispensary <id>', 'only writes to this dispensary')
    .option('--since <time>', 'only writes after this time, for example 2026-11-25T00:00:00Z')
    .option('--limit <n>', 'the newest N entries', '1000')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions<{ dispensary?: string; since?: string; limit: string }>(self);
      await withServices(options, async ({ audit }) => {
        const entries = await audit.list({
          dispensaryId:
            options.dispensary === undefined ? undefined : parseId(options.dispensary, 'The dispensary id'),
          since: options.since,
          limit: parseId(options.limit, 'The limit'),
        });
        emit(
          options,
          entries,
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
      });
    });
}
