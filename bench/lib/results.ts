/** bench/RESULTS.md: each bench after the main run owns one marked section of it. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './processes.js';

/**
 * Puts `section` (which begins with `<!-- name:start` and ends with `<!-- name:end -->`) in place of
 * the section of that name in bench/RESULTS.md, or at its end when it has none yet.
 */
export function writeResultsSection(name: string, section: string): void {
  const path = join(ROOT, 'bench/RESULTS.md');
  const results = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmark results\n';
  const marked = new RegExp(`<!-- ${name}:start[\\s\\S]*?<!-- ${name}:end -->\\n?`);
  writeFileSync(
    path,
    marked.test(results) ? results.replace(marked, section) : `${results.trimEnd()}\n\n${section}`,
  );
}
