import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { browserSuite } from '../helpers/browser-suite.js';
import { describeInChromium, seriousProblems } from '../helpers/chromium.js';
import { REPOSITORY } from '../helpers/cli.js';

/**
 * The /docs page as a person uses it: Debian's Chromium opens it on the demo server (a real
 * `menu-api serve --demo` process), runs a Form B menu request with "Execute", and sees the menu.
 * Nothing may be fetched from anywhere but the server itself. A screenshot goes to test-results/.
 */

describeInChromium('test/e2e/docs.browser.test.ts', '/docs in Chromium', () => {
  const suite = browserSuite({ serveArgs: ['--demo'], timeoutMs: 40_000 });

  it('the landing page (/) names the service and leads to the docs; /docs/ works too', async () => {
    await suite.page.goto(`${suite.server.url}/`);
    expect(await suite.page.locator('h1').textContent()).toBe('Dispensary Menu API');
    mkdirSync(join(REPOSITORY, 'test-results'), { recursive: true });
    await suite.page.screenshot({ path: join(REPOSITORY, 'test-results', 'landing.png') });
    expect(await seriousProblems(suite.page), 'axe on the landing page').toEqual([]);
    await suite.page.locator('a[href="docs"]').click();
    await expect
      .poll(() => suite.page.locator('.swagger-ui .info .title').textContent(), { timeout: 10_000 })
      .toContain('Dispensary Menu API');
    // Every operation but the HEAD ones (the page leaves those out) is drawn: Swagger UI once stopped
    // after three of them, silently, when the document grew past 133.
    const document = (await (await fetch(`${suite.server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const shown = Object.values(document.paths).flatMap((path) =>
      Object.keys(path).filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method)),
    );
    await expect.poll(() => suite.page.locator('.opblock').count(), { timeout: 10_000 }).toBe(shown.length);
    await suite.page.goto(`${suite.server.url}/docs/`);
    expect(new URL(suite.page.url()).pathname).toBe('/docs');
    await expect
      .poll(() => suite.page.locator('.swagger-ui .info .title').textContent(), { timeout: 10_000 })
      .toContain('Dispensary Menu API');
    expect(suite.foreign, 'requests that left this server').toEqual([]);
    expect(suite.problems, 'errors in the page').toEqual([]);
  }, 60_000);

  it('runs Form B and Form A menu requests from the page against the demo data, using only this server', async () => {
    await suite.page.goto(`${suite.server.url}/docs`);
    await expect
      .poll(() => suite.page.locator('.swagger-ui .info .title').textContent(), { timeout: 10_000 })
      .toContain('Dispensary Menu API');

    const operation = suite.page.locator('#operations-Form_B-readMenuFormB');
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
    const formA = suite.page.locator('#operations-Form_A-readMenuFormA');
    await formA.locator('.opblock-summary').first().click();
    await formA.locator('button.execute').click();
    const formABody = formA.locator('.live-responses-table .response-col_description .microlight').first();
    await expect.poll(() => formABody.textContent(), { timeout: 10_000 }).toContain('product_prices');
    expect(await formABody.textContent()).toContain('Blue Dream');
    await formA.locator('.opblock-summary').first().click();

    mkdirSync(join(REPOSITORY, 'test-results'), { recursive: true });
    await operation.scrollIntoViewIfNeeded();
    await suite.page.screenshot({ path: join(REPOSITORY, 'test-results', 'docs.png') });

    expect(suite.foreign, 'requests that left this server').toEqual([]);
    expect(suite.problems, 'errors in the page').toEqual([]);
  }, 60_000);
});
