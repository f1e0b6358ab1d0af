import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { describe, it } from 'vitest';

/**
 * Debian's Chromium, as every browser test drives it: never a downloaded browser. Elsewhere than CI a
 * missing Chromium skips those tests (saying how to install it); under CI it fails them.
 */
export const CHROMIUM = '/usr/bin/chromium';
const CI = Boolean(process.env.CI) && process.env.CI !== 'false';
export const SKIP_BROWSER = !existsSync(CHROMIUM) && !CI;
export const SKIP_BROWSER_REASON = `SKIPPED: ${CHROMIUM} is missing; install it with \`apt-get install -y chromium\` (CI installs it and runs this test)`;

/** Headless, and quiet: no first-run pages, no background traffic, no updates, no sync. */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A browser test's `describe`: with Chromium missing (and not under CI) the file says why on stderr and
 * its one test is skipped with that reason; otherwise `body` declares the tests.
 */
export function describeInChromium(file: string, name: string, body: () => void): void {
  if (!SKIP_BROWSER) {
    describe(name, body);
    return;
  }
  process.stderr.write(`\n${file} ${SKIP_BROWSER_REASON}\n`);
  describe(name, () => {
    it.skip(SKIP_BROWSER_REASON, () => undefined);
  });
}

export interface Chromium {
  context: BrowserContext;
  /** The context's first page. */
  page: Page;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** How long one browser step (a navigation, a click, a screenshot) may take on a busy 2-core machine. */
export const STEP_TIMEOUT_MS = 20_000;

/** One headless Chromium for a whole test file, with a fresh profile; `args` are added to CHROMIUM_FLAGS. */
export async function launchChromium(
  options: { args?: string[]; viewport?: { width: number; height: number } } = {},
): Promise<Chromium> {
  const profile = mkdtempSync(join(tmpdir(), 'menu-api-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_FLAGS, ...(options.args ?? [])],
      ...(options.viewport ? { viewport: options.viewport } : {}),
    });
    // Under Playwright's default (30 s, no limit for some waits) a stuck step outlives the test's own
    // timeout, which then fails without saying which step stuck; 20 s fails the step, by name, first.
    context.setDefaultTimeout(STEP_TIMEOUT_MS);
    context.setDefaultNavigationTimeout(STEP_TIMEOUT_MS);
    return {
      context,
      page: context.pages()[0] ?? (await context.newPage()),
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Records what a page must not do: fetch from anywhere but `origin` (into `foreign`), log an error to
 * the console that `expected` does not accept, or throw (both into `problems`).
 */
export function watchPage(
  page: Page,
  origin: string,
  found: { foreign: string[]; problems: string[] },
  expected: (consoleError: string) => boolean = () => false,
): void {
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:')) found.foreign.push(url);
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected(message.text())) found.problems.push(message.text());
  });
  page.on('pageerror', (error) => found.problems.push(error.message));
}

/** axe-core's script, evaluated in a page through the DevTools protocol (the page's CSP rightly refuses a script tag). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core's serious and critical findings on the page as it is now (open shadow roots included). */
export async function seriousProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(context?: unknown): Promise<{ violations: unknown[] }> } }
    ).axe;
    return (await axe.run()).violations;
  });
  return (violations as AxeViolation[])
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
    );
}
