/**
 * What the documentation generators (settings-doc.ts, cli-doc.ts) share: a page of the manual holds a
 * generated section between two markers. Without `--check` the section is rewritten; with it, the run
 * fails when the committed page differs from a fresh rendering (how `npm run lint` holds the page to
 * the code it documents).
 */
import { readFileSync, writeFileSync } from 'node:fs';

export interface GeneratedSection {
  /** Absolute path of the page. */
  file: string;
  /** Its name in messages, relative to the repository: docs/cli.md. */
  name: string;
  begin: string;
  end: string;
  /** The section, markers included. */
  render: () => string;
  /** What the section is made from, for the message when it is stale. */
  source: string;
  /** The npm script that rewrites it. */
  command: string;
}

export function writeOrCheck(section: GeneratedSection, argv: string[] = process.argv): void {
  const page = readFileSync(section.file, 'utf8');
  const begin = page.indexOf(section.begin);
  const end = page.indexOf(section.end);
  if (begin < 0 || end < begin) {
    process.stderr.write(`${section.name} has no ${section.begin} ... ${section.end} markers.\n`);
    process.exit(1);
  }
  const fresh = page.slice(0, begin) + section.render() + page.slice(end + section.end.length);
  if (!argv.includes('--check')) {
    writeFileSync(section.file, fresh);
    return;
  }
  if (fresh !== page) {
    process.stderr.write(
      `${section.name} is out of date: regenerate it from ${section.source} with \`${section.command}\` and commit the result.\n`,
    );
    process.exit(1);
  }
}
