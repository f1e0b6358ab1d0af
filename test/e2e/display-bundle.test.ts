import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { assertBuilt, REPOSITORY } from '../helpers/cli.js';

/**
 * The browser code of the public surfaces stays small: a board on a cheap stick computer and an embed
 * on a dispensary's own web site load it on every start. Budgets in bytes, gzip-compressed.
 */
const BUDGETS: Record<string, number> = { 'embed.js': 8 * 1024, 'board.js': 8 * 1024, 'menu.js': 2 * 1024 };

describe('the bundled browser code', () => {
  it.each(Object.entries(BUDGETS))(
    '%s is within its budget of %i bytes gzipped, with no framework',
    (file, budget) => {
      assertBuilt();
      const code = readFileSync(join(REPOSITORY, 'dist', 'display', file));
      expect(gzipSync(code).length).toBeLessThanOrEqual(budget);
      // Built from web/display with esbuild: one self-contained script, no module syntax, no source map.
      expect(code.toString()).not.toMatch(/^import |\bsourceMappingURL\b/m);
    },
  );
});
