import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_FLAGS, SKIP_BROWSER, SKIP_BROWSER_REASON } from '../helpers/chromium.js';
import { assertBuilt, REPOSITORY, type ServerProcess, startServe } from '../helpers/cli.js';
import { type TestDatabase, testDatabase } from '../helpers/runtime.js';

/**
 * The /docs page as a person uses it: Debian's Chromium opens it on the demo server (a real
 * `menu-api serve --demo` process), runs a Form B menu request with "Execute", and sees the menu.
 * Nothing may be fetched from anywhere but the server itself. A screenshot goes to test-results/.
 */

if (SKIP_BROWSER) process.stderr.write(`\ntest/e2e/docs.browser.test.ts ${SKIP_BROWSER_REASON}\n`);

describe('/docs in Chromium', () => {
  if (SKIP_BROWSER) {
    it.skip(SKIP_BROWSER_REASON, () => undefined);
    return;
  }

  let database: TestDatabase;
  let server: ServerProcess;
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  const foreign: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    assertBuilt();
    database = await testDatabase();
    server = await startServe(database.address, ['--demo']);
    profile = mkdtempSync(join(tmpdir(), 'menu-api-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_FLAGS],
      viewport: { width: 1280, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(server.url) && !url.startsWith('data:')) foreign.push(url);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  }, 40_000);

  afterAll(async () => {
    await context?.close();
    await server?.stop();
    await database?.cleanup();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('the landing page (/) names the service and leads to the docs; /docs/ works too', async () => {
    await page.goto(`${server.url}/`);
    expect(await page.locator('h1').textContent()).toBe('Dispensary Menu API');
    await page.locator('a[href="docs"]').click();
    await expect
      .poll(() => page.locator('.swagger-ui .info .title').textContent(), { timeout: 10_000 })
      .toContain('Dispensary Menu API');
    await page.goto(`${server.url}/docs/`);
    expect(new URL(page.url()).pathname).toBe('/docs');
    await expect
      .poll(() => page.locator('.swagger-ui .info .title').textContent(), { timeout: 10_000 })
      .toContain('Dispensary Menu API');
    expect(foreign, 'requests that left this server').toEqual([]);
    expect(problems, 'errors in the page').toEqual([]);
  }, 30_000);

  it('runs Form B and Form A menu requests from the page against the demo data, using only this server', async () => {
    await page.goto(`${server.url}/docs`);
    await expect
      .poll(() => page.locator('.swagger-ui .info .title').textContent(), { timeout: 10_000 })
      .toContain('Dispensary Menu API');

    const operation = page.locator('#operations-Form_B-readMenuFormB');
    await operation.locator('.opblock-summary').first().click();
    // "Try it out" is on from the start; the demo credentials are filled in as Form B's security.
    await operation.locator('button.execute').click();

    const body = operation.locator('.live-responses-table .response-col_description .microlight').first();
    await expect.poll(() => body.textContent(), { timeout: 10_000 }).toContain('Blue Dream');
    expect(
      await operation.locator('.live-responses-table .response .response-col_status').first().textContent(),
    ).toContain('200');
    expect(await body.textContent()).toContain('Granddaddy Purple');

    // Form A from the same page: its example body carries the demo credentials.
    const formA = page.locator('#operations-Form_A-readMenuFormA');
    await formA.locator('.opblock-summary').first().click();
    await formA.locator('button.execute').click();
    const formABody = formA.locator('.live-responses-table .response-col_description .microlight').first();
    await expect.poll(() => formABody.textContent(), { timeout: 10_000 }).toContain('product_prices');
    expect(await formABody.textContent()).toContain('Blue Dream');
    await formA.locator('.opblock-summary').first().click();

    mkdirSync(join(REPOSITORY, 'test-results'), { recursive: true });
    await operation.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(REPOSITORY, 'test-results', 'docs.png') });

    expect(foreign, 'requests that left this server').toEqual([]);
    expect(problems, 'errors in the page').toEqual([]);
  }, 30_000);
});
