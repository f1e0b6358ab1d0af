import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import { UNLIMITED } from '../helpers/admin.js';
import { assertBuilt, cliJson, commandJson, runCommand, runInProcess } from '../helpers/cli.js';
import { TEST_SCRYPT, type TestDatabase, testDatabase } from '../helpers/runtime.js';
import { eventually } from '../helpers/wait.js';

assertBuilt();

/** The slug suggested from the name, and what the public pages show when publish is given no option. */
const GREEN_LEAF_DEFAULTS = {
  slug: 'green-leaf',
  show_stock: false,
  show_regular_price: true,
  show_potency: true,
};

/**
 * `dispensary publish` and `unpublish` on a database a running server also serves: the first publish as
 * a process of its own (the built binary), the rest in this process (runCommand: no Node start each).
 */
describe('dispensary publish and unpublish', { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let server: Runtime;
  let shop: number;
  let other: number;
  const status = async (path: string) => (await server.app.inject({ method: 'GET', url: path })).statusCode;

  beforeAll(async () => {
    database = await testDatabase();
    server = await createRuntime(
      { ...DEFAULTS, ...UNLIMITED, database: database.address, databasePoolSize: 2, changePollMs: 50 },
      { logger: false, scryptCost: TEST_SCRYPT },
    );
    shop = (await server.services.dispensaries.create('Green Leaf')).id;
    other = (await server.services.dispensaries.create('Other Shop')).id;
  });
  afterAll(async () => {
    await server?.close();
    await database?.cleanup();
  });

  it('--help of both commands names the options', async () => {
    const publish = await runInProcess(['dispensary', 'publish', '--help']);
    expect(publish.stdout).toContain('--slug <slug>');
    expect(publish.stdout).toContain('--show-stock');
    expect(publish.stdout).toContain('--no-regular-price');
    expect(publish.stdout).toContain('--no-potency');
    expect(publish.stdout).toContain('--json');
    expect((await runInProcess(['dispensary', 'unpublish', '--help'])).stdout).toContain('--json');
  });

  it('publish --json suggests the slug from the name; the page is served; unpublish makes it 404 within the poll', async () => {
    expect(await status('/m/green-leaf')).toBe(404);
    const published = await cliJson(database.address, ['dispensary', 'publish', String(shop)]);
    expect(published).toEqual({ id: shop, published: true, ...GREEN_LEAF_DEFAULTS });
    await eventually(async () => expect(await status('/m/green-leaf')).toBe(200));
    const listed = await runCommand(database.address, ['dispensary', 'list']);
    expect(listed.stdout).toMatch(/PUBLIC[\s\S]*\/m\/green-leaf/);
    const unpublished = await commandJson(database.address, ['dispensary', 'unpublish', String(shop)]);
    expect(unpublished).toEqual({ id: shop, published: false, ...GREEN_LEAF_DEFAULTS });
    await eventually(async () => {
      expect(await status('/m/green-leaf')).toBe(404);
      expect(await status('/board/green-leaf')).toBe(404);
      expect(await status('/m/green-leaf/menu.json')).toBe(404);
    });
  });

  it('--slug and --show-stock; a slug that is taken is a conflict saying what to do', async () => {
    const chosen = await commandJson(database.address, [
      'dispensary',
      'publish',
      String(shop),
      '--slug',
      'leaf-shop',
      '--show-stock',
      '--no-regular-price',
      '--no-potency',
    ]);
    expect(chosen).toEqual({
      id: shop,
      published: true,
      slug: 'leaf-shop',
      show_stock: true,
      show_regular_price: false,
      show_potency: false,
    });
    const taken = await runCommand(database.address, [
      'dispensary',
      'publish',
      String(other),
      '--slug',
      'leaf-shop',
      '--json',
    ]);
    expect(taken.code).toBe(1);
    const error = JSON.parse(taken.stdout).error;
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('Choose another');
    const bad = await runCommand(database.address, [
      'dispensary',
      'publish',
      String(other),
      '--slug',
      'No Good',
      '--json',
    ]);
    expect(JSON.parse(bad.stdout).error.code).toBe('invalid_request');
    const missing = await runCommand(database.address, ['dispensary', 'unpublish', '9999', '--json']);
    expect(JSON.parse(missing.stdout).error.code).toBe('not_found');
  });
});
