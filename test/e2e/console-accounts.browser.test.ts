import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type Chromium,
  describeInChromium,
  launchChromium,
  seriousProblems,
  watchPage,
} from '../helpers/chromium.js';
import { assertBuilt, cliJson, REPOSITORY, type ServerProcess, startServe } from '../helpers/cli.js';
import { type TestDatabase, testDatabase } from '../helpers/runtime.js';

/**
 * People's accounts in the console, in Debian's Chromium against `menu-api serve`: an invitation's
 * link opened, a password chosen from the keyboard, signed in; the Team page inviting and removing;
 * sign-out, and sign-in with email and password. Every page is checked by axe-core (no serious or
 * critical finding) and screenshot to test-results/console-accounts/; the page's CSP (no inline
 * script) is the server's own, and any violation would be a console error.
 */
const SHOTS = join(REPOSITORY, 'test-results', 'console-accounts');
const PASSWORD = 'correct horse battery staple';

describeInChromium('test/e2e/console-accounts.browser.test.ts', 'accounts in the console', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let browser: Chromium;
  let page: Page;
  const foreign: string[] = [];
  const problems: string[] = [];

  const checked = async (name: string) => {
    await page.screenshot({ path: join(SHOTS, `${name}.png`) });
    expect(await seriousProblems(page), name).toEqual([]);
  };

  beforeAll(async () => {
    assertBuilt();
    mkdirSync(SHOTS, { recursive: true });
    database = await testDatabase();
    await cliJson(database.address, ['dispensary', 'create', '--name', 'Green Leaf']);
    server = await startServe(database.address);
    browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
    page = browser.page;
    watchPage(page, server.url, { foreign, problems }, (error) => error.includes('401'));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await database?.cleanup();
  });

  it('opens an invitation, chooses a password from the keyboard, and is signed in', async () => {
    const issued = await cliJson<{ link: string }>(database.address, [
      'account',
      'invite',
      '--email',
      'owner@example.com',
      '--role',
      'operator',
      '--public-url',
      server.url,
    ]);
    await page.goto(issued.link);
    await page.getByText('For owner@example.com').waitFor();
    // The secret is taken off the address at once.
    expect(page.url()).toBe(`${server.url}/console/link`);
    await checked('link');
    await page.getByLabel('New password').focus();
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 10_000 });
    await page.getByText('owner@example.com (operator)').waitFor();
  }, 60_000);

  it('invites a manager on the Team page and removes them', async () => {
    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { name: 'Team' }).waitFor();
    await page.getByLabel('Email').fill('manager@example.com');
    await page.getByLabel('Role').selectOption('manager');
    await page.getByLabel('Green Leaf').check();
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByText('One-time link for manager@example.com').waitFor();
    await checked('team-invited');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: 'manager@example.com', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Remove manager@example.com' }).click();
    await page.getByRole('button', { name: 'Remove account' }).click();
    await expect
      .poll(() => page.getByRole('cell', { name: 'manager@example.com', exact: true }).count())
      .toBe(0);
  }, 60_000);

  it('signs out, and signs in again with email and password', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').waitFor();
    await checked('sign-in');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'do not match' }).waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByText('owner@example.com (operator)').waitFor({ timeout: 10_000 });
    expect(foreign).toEqual([]);
    expect(problems.filter((problem) => !/status of 40[0-39]/.test(problem))).toEqual([]);
  }, 60_000);
});
