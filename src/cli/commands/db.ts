import { Command } from 'commander';
import { commonOptions, jsonOption } from '../options.js';

const COPY_HELP = `
The target is migrated to this version and written in one transaction: the copy either completes,
with the row counts of every table checked against the source, or changes nothing. Rows keep their
ids, so dispensary tokens and API passwords issued before the copy keep working on the target.
Stop the servers of the target while copying into it, and stop writes to the source (its snapshot is
what is copied).

Examples:
  npx menu-api db copy --from ./data/menu.db --to postgres://menu@db.internal/menu
  npx menu-api db copy --from postgres://menu@db.internal/menu --to ./backup.db --json`;

export function dbCommand(): Command {
  const command = new Command('db').description(
    'database tools: copy everything between SQLite and PostgreSQL',
  );

  command
    .command('copy')
    .description('copy every table from one database to another, in one transaction on the target')
    .requiredOption('--from <address>', 'source: a SQLite file path, sqlite:PATH or postgres://...')
    .requiredOption('--to <address>', 'target: a SQLite file path, sqlite:PATH or postgres://... (empty)')
    .option('--force', 'replace what the target holds instead of refusing a target that is not empty')
    .addOption(jsonOption())
    .addHelpText('after', COPY_HELP)
    .action(async (_options, self: Command) => {
      const { copy } = await import('../actions/db.js');
      await copy(commonOptions<{ from: string; to: string; force?: boolean }>(self));
    });

  return command;
}
