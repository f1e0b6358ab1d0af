import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { REPOSITORY } from '../helpers/cli.js';

/**
 * Rooms with one job (issue 28): no source file under src/ grows past 400 lines, migrations aside (each
 * is a schema's history, kept as written). A file that does is doing more than one job: split it along
 * its seams (docs/architecture.md).
 */
const MAX_LINES = 400;

it(`keeps every source file under src/ at ${MAX_LINES} lines or fewer, migrations aside`, () => {
  const source = join(REPOSITORY, 'src');
  const files = readdirSync(source, { recursive: true, encoding: 'utf8' })
    .filter((path) => /\.(ts|tsx)$/.test(path) && !path.split(/[\\/]/).includes('migrations'))
    .map((path) => join(source, path));
  expect(files.length).toBeGreaterThan(100);
  const over = files
    .map((file) => ({
      file: relative(REPOSITORY, file),
      lines: readFileSync(file, 'utf8').split('\n').length - 1,
    }))
    .filter(({ lines }) => lines > MAX_LINES);
  expect(over).toEqual([]);
});
