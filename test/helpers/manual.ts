import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { REPOSITORY } from './cli.js';

/**
 * The README and the manual in docs/ as runnable documents: their pages, their shell blocks, and a
 * runner for one block (test/e2e/readme.e2e.test.ts runs them all; test/e2e/prism.e2e.test.ts runs the
 * Form A examples through a validating proxy).
 */

/** The address every example calls (the demo server of `npm start`): tests put their server's there. */
export const README_ADDRESS = 'http://127.0.0.1:8080';
export const INDEX = 'docs/README.md';
const SKIP = /^<!-- readme-test: skip \((.*)\) -->$/;
const SHELL_FENCE = /^```(sh|bash|shell)\s*$/;

/** A page of the manual, by its repository-relative path. */
export const readPage = (page: string) => readFileSync(join(REPOSITORY, page), 'utf8');

/** The README, the index, then every page the index links, in its order (repository-relative paths). */
export function manualPages(): string[] {
  const pages = ['README.md', INDEX];
  for (const [, target] of readPage(INDEX).matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)) {
    const page = normalize(join('docs', target!));
    if (!pages.includes(page)) pages.push(page);
  }
  return pages;
}

export interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  skip?: string;
}

export function shellBlocks(text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!SHELL_FENCE.test(lines[index]!)) continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && !/^```\s*$/.test(lines[index]!); index++)
      body.push(lines[index]!);
    const marker = SKIP.exec(lines[start - 1] ?? '');
    blocks.push({ line: start + 1, code: body.join('\n'), ...(marker ? { skip: marker[1]!.trim() } : {}) });
  }
  return blocks;
}

/** Every shell block of the README and the manual, page by page in the index's order. */
export function manualBlocks(): (Block & { page: string })[] {
  return manualPages().flatMap((page) => shellBlocks(readPage(page)).map((block) => ({ ...block, page })));
}

/** A block's commands, comments aside, each continued line (`\` at its end) joined to the next. */
export function commandsOf(block: Block): string[] {
  return block.code
    .replaceAll(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''));
}

/** A block calls the API or the CLI when one of its commands (comments aside) runs curl, the CLI or an example. */
export function callsApiOrCli(block: Block): boolean {
  return commandsOf(block).some((line) => /\bcurl\s|\bmenu-api\b|\bexamples\//.test(line));
}

/** Runs a block with bash, every command checked; curl fails on an HTTP error (4xx, 5xx) too. */
export function runBlock(
  code: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const prelude = 'set -euo pipefail\ncurl() { command curl --fail-with-body --show-error "$@"; }\n';
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', `${prelude}${code}\n`],
      { cwd: REPOSITORY, env, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}
