import { SingleBar } from 'cli-progress';
import { type CopyProgress, copyDatabase } from '../../services/db-copy.js';
import { sayCreated } from '../context.js';
import type { CommonOptions } from '../options.js';
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

export async function copy(
  options: CommonOptions & { from: string; to: string; force?: boolean },
): Promise<void> {
  const progress = progressBars(!options.json);
  try {
    const report = await copyDatabase(options.from, options.to, {
      force: Boolean(options.force),
      onProgress: progress.listener,
      onCreate: sayCreated,
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
}
