import { SingleBar } from 'cli-progress';
import { Command } from 'commander';
import { type CopyProgress, copyDatabase } from '../../services/db-copy.js';
import { commonOptions, jsonOption } from '../context.js';
import { emit, fail, table } from '../output.js';

/** One bar per table on a terminal; nothing when output is piped or --json. */
function progressBars(enabled: boolean): { listener?: (progress: CopyProgress) => void; stop(): void } {
  if (!enabled || !process.stderr.isTTY) return { stop() {} };
  let bar: SingleBar | undefined;
  let current = '';
  const finish = () => bar?.stop();
  return {
    listener: ({ table: name, copied, total }) => {
      if (name !== current) {
        finish();
        current = name;
        bar = new SingleBar({
          format: `${name.padEnd(18)} [{bar}] {rows} rows`,
          stream: process.stderr,
        });
        bar.start(Math.max(total, 1), 0, { rows: `0/${total}` });
      }
      bar?.update(total === 0 ? 1 : copied, { rows: `${copied}/${total}` });
    },
    stop: finish,
  };
}

const COPY_HELP = `
The target is migrated to this version and written in one transaction: the copy either completes,
with the row counts of every table checked against the source, or changes nothing. Rows keep their
ids, so dispensary tokens and API passwords issued before the copy keep working on the target.
Stop the servers of the target while copying into it, and stop writes to the source (its snapshot is
what is copied).

Examples:
  menu-api db copy --from ./data/menu.db --to postgres://menu@db.internal/menu
  menu-api db copy --from postgres://menu@db.internal/menu --to ./backup.db --json`;

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
      const options = commonOptions<{ from: string; to: string; force?: boolean }>(self);
      const progress = progressBars(!options.json);
      try {
        const report = await copyDatabase(options.from, options.to, {
          force: Boolean(options.force),
          onProgress: progress.listener,
        });
        progress.stop();
        const rows = report.tables.map((entry) => [entry.table, entry.rows]);
        emit(
          options,
          report,
          [
            `Copied ${report.rows} rows from ${report.from} to ${report.to}${report.replaced ? ' (replacing what it held)' : ''}; counts verified.`,
            '',
            table(['TABLE', 'ROWS'], rows),
          ].join('\n'),
        );
      } catch (error) {
        progress.stop();
        fail(options, error);
      }
    });

  return command;
}
