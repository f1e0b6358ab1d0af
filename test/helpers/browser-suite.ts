import type { Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { type Chromium, launchChromium, watchPage } from './chromium.js';
import { assertBuilt, type ServerProcess, startServe } from './cli.js';
import { type TestDatabase, testDatabase } from './runtime.js';

/** A browser test file's world, filled in before its first test: read its fields inside tests and hooks only. */
export interface BrowserSuite {
  database: TestDatabase;
  /** A real `menu-api serve` process over `database`. */
  server: ServerProcess;
  /** Debian's Chromium at 1280×900, and its page, watched from the start. */
  browser: Chromium;
  page: Page;
  /** What the page fetched from anywhere but the server. */
  foreign: string[];
  /** The errors it logged (but those `expected` accepts) or threw. */
  problems: string[];
}

/**
 * The set-up browser test files share: a fresh database (`seed` runs on it first), `menu-api serve`
 * with `serveArgs`, Chromium watching its page; `ready` runs once all of it is up. Closed after the
 * file's tests.
 */
export function browserSuite(options: {
  serveArgs?: string[];
  seed?: (database: TestDatabase) => Promise<void>;
  expected?: (consoleError: string) => boolean;
  ready?: (suite: BrowserSuite) => Promise<void>;
  timeoutMs: number;
}): BrowserSuite {
  // Filled in by beforeAll, before any test or hook of the file reads it.
  const suite = { foreign: [] as string[], problems: [] as string[] } as BrowserSuite;
  beforeAll(async () => {
    assertBuilt();
    suite.database = await testDatabase();
    await options.seed?.(suite.database);
    suite.server = await startServe(suite.database.address, options.serveArgs ?? []);
    suite.browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
    suite.page = suite.browser.page;
    watchPage(suite.page, suite.server.url, suite, options.expected);
    await options.ready?.(suite);
  }, options.timeoutMs);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.server?.stop();
    await suite.database?.cleanup();
  });
  return suite;
}
