import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY } from '../helpers/cli.js';

/**
 * issue 28: every setting is declared in the settings table (src/config/settings.ts) and read from
 * the environment only by the table's reader, so that each has its option, its place in --help and
 * in the README's table. A variable read anywhere else must be on this list, with why it is no setting.
 */
const NOT_SETTINGS: Record<string, string> = {
  'src/cli/settings-options.ts': "the table's reader: every setting's variable, by the table's entries",
  'src/server/cluster.ts':
    "MALLOC_MMAP_THRESHOLD_: glibc's own variable, given to workers unless the operator set it",
};

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the environment', () => {
  it('is read in src only by the settings table, and where a variable is no setting', () => {
    const readers = sources(join(REPOSITORY, 'src'))
      .filter((path) => /\bprocess\.env\b|\bprocess\s*\[\s*['"]env/.test(readFileSync(path, 'utf8')))
      .map((path) => relative(REPOSITORY, path).replaceAll('\\', '/'));
    expect(readers.sort()).toEqual(Object.keys(NOT_SETTINGS).sort());
  });
});
