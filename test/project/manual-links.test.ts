import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY } from '../helpers/cli.js';

/**
 * The manual's links hold (issue 28): the README, CONTRIBUTING.md and every page of docs/ link each
 * other, the repository's files and the screenshots by relative paths, often to a heading. Moving a
 * section or renaming a heading must not leave a link pointing at nothing.
 */
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(REPOSITORY, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks: a `# comment` in a shell block is no heading, a link in one no link. */
function prose(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .filter((line) => {
      if (/^```/.test(line)) fenced = !fenced;
      return !fenced && !/^```/.test(line);
    })
    .join('\n');
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(readFileSync(join(REPOSITORY, page), 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Every relative link and image of a page: markdown `](target)` and HTML `src="target"`. */
function links(page: string): string[] {
  const text = prose(readFileSync(join(REPOSITORY, page), 'utf8'));
  const targets = [
    ...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!),
    ...[...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!),
  ];
  return targets.filter((target) => !/^[a-z]+:/i.test(target));
}

describe('the manual’s links', () => {
  it('has a README of at most 250 lines that leads into docs/', () => {
    const readme = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme).toContain('](docs/README.md)');
  });

  it('every relative link and image points at a file that exists, and every #anchor at a heading', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const link of links(page)) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? page : normalize(join(dirname(page), decodeURI(path)));
        if (!existsSync(join(REPOSITORY, target))) {
          broken.push(`${page}: ${link} (no ${target})`);
          continue;
        }
        if (anchor === undefined || statSync(join(REPOSITORY, target)).isDirectory()) continue;
        if (target.endsWith('.md') && !anchors(target).has(anchor))
          broken.push(`${page}: ${link} (no heading #${anchor} in ${target})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps the screenshots where the pages show them', () => {
    const shown = PAGES.flatMap((page) =>
      links(page)
        .filter((link) => link.endsWith('.png'))
        .map((link) => normalize(join(dirname(page), link))),
    );
    for (const screenshot of [
      'docs/console-menu.png',
      'docs/display/menu-390x844.png',
      'docs/display/menu-1440x900.png',
      'docs/display/board-1920x1080.png',
      'docs/display/embed-host-page.png',
    ])
      expect(shown).toContain(screenshot);
  });
});
