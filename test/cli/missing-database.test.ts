import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runCommand } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/runtime.js';

assertBuilt();

/** A runCli call starts Node; on a machine busy with the rest of the suite it can take many seconds. */
const SLOW = { timeout: 90_000 };

/*
 * A mistyped --db must never turn into a new empty database: a command that only reads refuses a
 * missing SQLite file (exit 1, nothing created); a command that writes creates it and says so. The
 * readers run in this process (runCommand); db copy and the first write run the built binary (runCli).
 */
describe('a SQLite file that does not exist', () => {
  let folder: ReturnType<typeof temporaryDirectory>;
  let missing: string;
  beforeEach(() => {
    folder = temporaryDirectory();
    missing = join(folder.path, 'nope.db');
  });
  afterEach(() => folder.remove());

  const READERS: [string, string[]][] = [
    ['dispensary list', ['dispensary', 'list']],
    ['dispensary show', ['dispensary', 'show', '1']],
    ['credential list', ['credential', 'list']],
    ['admin-key list', ['admin-key', 'list']],
    ['menu export', ['menu', 'export', '--dispensary', '1']],
    ['audit', ['audit']],
  ];

  it.each(READERS)('%s exits 1 with a clear message and creates nothing', SLOW, async (_name, args) => {
    const result = await runCommand(missing, args);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain(`${missing} does not exist`);
    expect(readdirSync(folder.path)).toEqual([]);
  });

  it('--json says so as a not_found error', SLOW, async () => {
    const result = await runCommand(missing, ['dispensary', 'list', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'not_found' });
    expect(existsSync(missing)).toBe(false);
  });

  it('db copy --from a missing file exits 1, creates neither file, reports no copy', SLOW, async () => {
    const copy = join(folder.path, 'copy.db');
    const result = await runCli(undefined, ['db', 'copy', '--from', missing, '--to', copy]);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).not.toContain('Copied');
    expect(result.stderr).toContain(`${missing} does not exist`);
    expect(readdirSync(folder.path)).toEqual([]);
  });

  it('a command that writes creates the file and says so on stderr', SLOW, async () => {
    const result = await runCli(missing, ['dispensary', 'create', '--name', 'First', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 1 });
    expect(result.stderr).toContain(`Created a new database at ${missing}`);
    expect(existsSync(missing)).toBe(true);
    // Once it exists, readers read it and nothing is said about creating it.
    const list = await runCommand(missing, ['dispensary', 'list']);
    expect(list.code).toBe(0);
    expect(list.stderr).toBe('');
  });
});
