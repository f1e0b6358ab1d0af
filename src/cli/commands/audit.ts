import { Command } from 'commander';
import { commonOptions, jsonOption } from '../options.js';

export function auditCommand(): Command {
  return new Command('audit')
    .description('show the audit log: every write, who made it, and counts (never a secret)')
    .option('--dispensary <id>', 'only writes to this dispensary')
    .option('--since <time>', 'only writes after this time, for example 2026-11-25T00:00:00Z')
    .option('--limit <n>', 'the newest N entries', '1000')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const { audit } = await import('../actions/audit.js');
      await audit(commonOptions<{ dispensary?: string; since?: string; limit: string }>(self));
    });
}
