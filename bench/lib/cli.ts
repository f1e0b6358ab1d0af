/** The `menu-api` command line of the build, for benches that set up their data as an operator would. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { realisticMenu } from './data.js';
import { ROOT } from './processes.js';

/** One `bin/menu-api` command of the build on `database`, its `--json` answer parsed. */
export function menuCli<T>(database: string, args: string[]): T {
  const out = execFileSync(
    process.execPath,
    [join(ROOT, 'bin/menu-api'), '--db', database, ...args, '--json'],
    {
      encoding: 'utf8',
    },
  );
  return JSON.parse(out) as T;
}

export interface CliDispensary {
  id: number;
  token: string;
  /** An admin key of scope `all`. */
  key: string;
  /** The imported menu, every item active. */
  menu: Record<string, unknown>[];
}

/** A dispensary with a realistic menu of `items` items (every one active) and an admin key, through the CLI. */
export function cliDispensary(
  database: string,
  work: string,
  options: { name: string; keyName: string; items: number; seed: number },
): CliDispensary {
  const { id, token } = menuCli<{ id: number; token: string }>(database, [
    'dispensary',
    'create',
    '--name',
    options.name,
  ]);
  const { key } = menuCli<{ key: string }>(database, [
    'admin-key',
    'create',
    '--scope',
    'all',
    '--name',
    options.keyName,
  ]);
  const menu = realisticMenu(options.items, options.seed).map(
    (item): Record<string, unknown> => ({ ...item, active: true }),
  );
  const file = join(work, 'menu.json');
  writeFileSync(file, JSON.stringify(menu));
  menuCli(database, ['menu', 'import', '--dispensary', String(id), file]);
  return { id, token, key, menu };
}
