import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import { adminCaller, expectNoSecrets, UNLIMITED } from '../helpers/admin.js';
import {
  adminKeyCreate,
  assertBuilt,
  type CliResult,
  commandJson,
  runCli,
  runCommand,
} from '../helpers/cli.js';
import { UNSET_STORE_INFO } from '../helpers/fixtures.js';
import { formBHeaders } from '../helpers/http.js';
import {
  SAMPLE_MENU,
  TEST_SCRYPT,
  type TestDatabase,
  temporaryDirectory,
  testDatabase,
} from '../helpers/runtime.js';
import { eventually } from '../helpers/wait.js';

assertBuilt();

interface CliError {
  error: { code: string; message: string; problems?: { field: string; message: string }[] };
}

/** A failed `--json` command: exit code 1, the error as JSON on standard output. */
function failed(result: CliResult): CliError['error'] {
  expect(result.code, result.stderr).toBe(1);
  return (JSON.parse(result.stdout) as CliError).error;
}

interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  dispensary_id: number | null;
  action: string;
  detail: Record<string, unknown>;
}

/**
 * The commands run as an operator runs them, on a database that a server runtime in this process also
 * uses: what the CLI writes, the server serves. Most run to the end in this process (runCommand: no Node
 * start); one test of each command family runs the built binary as its own process
 * (`node bin/menu-api --db ...`, runCli). Setup goes through the server's services, the same code the
 * commands call.
 */
describe('the sync commands of the CLI, on a database shared with a running server', {
  timeout: 90_000,
}, () => {
  const directory = temporaryDirectory();
  const file = (name: string, content: unknown) => {
    const path = join(directory.path, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  let database: TestDatabase;
  let db: string;
  let server: Runtime;
  let shop: { id: number; token: string };
  let other: { id: number; token: string };
  let integrator: { username: string; password: string };
  let operatorKey: string;
  const secrets: string[] = [];
  const headersFor = (token: string) => formBHeaders({ ...integrator, token });
  const itemsOf = (id: number) => server.services.menus.items(id);

  beforeAll(async () => {
    database = await testDatabase();
    db = database.address;
    server = await createRuntime(
      { ...DEFAULTS, ...UNLIMITED, database: db, databasePoolSize: 2, changePollMs: 50 },
      { logger: false, scryptCost: TEST_SCRYPT },
    );
    const { dispensaries, credentials, menus } = server.services;
    const first = await dispensaries.create('Green Leaf');
    const second = await dispensaries.create('Other Shop');
    shop = { id: first.id, token: first.token };
    other = { id: second.id, token: second.token };
    integrator = await credentials.issue('integrator');
    await menus.replace(shop.id, menus.validate(SAMPLE_MENU));
    await menus.replace(other.id, menus.validate(SAMPLE_MENU));
    secrets.push(shop.token, other.token, integrator.password);
  });
  afterAll(async () => {
    await server?.close();
    await database?.cleanup();
    directory.remove();
  });

  describe('admin-key', () => {
    it('create --json prints {name, scope, key} once; the key works on the sync API at once', async () => {
      const created = await commandJson<{ name: string; scope: string; key: string }>(
        db,
        adminKeyCreate('all', 'pos'),
      );
      expect(created).toEqual({
        name: 'pos',
        scope: 'all',
        key: expect.stringMatching(/^mak_[A-Za-z0-9_-]{20,}$/),
      });
      operatorKey = created.key;
      secrets.push(created.key);
      const response = await adminCaller(server.app, created.key)('GET', '/dispensaries');
      expect(response.statusCode).toBe(200);
      expect(response.json().map((entry: { id: number }) => entry.id)).toEqual([shop.id, other.id]);
    });

    it('create without --json prints the key once; a scoped key is held to its dispensary', async () => {
      const result = await runCli(db, adminKeyCreate(`dispensary:${shop.id}`, 'till-1'));
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain(`scope dispensary:${shop.id}`);
      const key = /Key \(shown once\): (mak_\S+)/.exec(result.stdout)?.[1];
      expect(key).toBeDefined();
      secrets.push(key!);
      const call = adminCaller(server.app, key!);
      expect((await call('GET', `/dispensaries/${shop.id}`)).statusCode).toBe(200);
      expect((await call('GET', `/dispensaries/${other.id}`)).statusCode).toBe(403);
    });

    it('create refuses a bad scope and a name in use', async () => {
      const [scope, taken] = await Promise.all([
        runCommand(db, ['admin-key', 'create', '--scope', 'everything', '--name', 'x', '--json']),
        runCommand(db, ['admin-key', 'create', '--scope', 'all', '--name', 'pos', '--json']),
      ]);
      expect(failed(scope)).toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining('dispensary:ID'),
      });
      expect(failed(taken)).toMatchObject({ code: 'conflict' });
    });

    it('list --json: name, scope and times, never a key', async () => {
      const result = await runCommand(db, ['admin-key', 'list', '--json']);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual([
        {
          name: 'pos',
          scope: 'all',
          created_at: expect.any(String),
          // Used by this file's server already: to the minute, or never.
          last_used_at: expect.toSatisfy((value: unknown) => value === null || typeof value === 'string'),
          revoked: false,
          revoked_at: null,
        },
        {
          name: 'till-1',
          scope: `dispensary:${shop.id}`,
          created_at: expect.any(String),
          // Used by this file's server already: to the minute, or never.
          last_used_at: expect.toSatisfy((value: unknown) => value === null || typeof value === 'string'),
          revoked: false,
          revoked_at: null,
        },
      ]);
      expectNoSecrets(result.stdout, secrets);
    });

    it('revoke --json: {name, revoked}; the running server refuses the key (401) within its poll interval', async () => {
      const created = await server.services.adminKeys.create('temp', 'all');
      secrets.push(created.key);
      const call = adminCaller(server.app, created.key);
      expect((await call('GET', '/dispensaries')).statusCode).toBe(200);
      expect(await commandJson(db, ['admin-key', 'revoke', 'temp'])).toEqual({ name: 'temp', revoked: true });
      await eventually(async () => expect((await call('GET', '/dispensaries')).statusCode).toBe(401));
      const listed = await server.services.adminKeys.list();
      expect(listed.find((key) => key.name === 'temp')?.revokedAt).toEqual(expect.any(String));
      expect(failed(await runCommand(db, ['admin-key', 'revoke', 'temp', '--json']))).toMatchObject({
        code: 'not_found',
      });
    });
  });

  describe('inventory set', () => {
    it('from a file: every level set in one go, read back by the services and served at once', async () => {
      const levels = file('levels.json', [
        { item_id: 3, unit: 'gram', amount: 1, stock: 41 },
        { item_id: 3, unit: 'ounce', amount: 0.125, stock: 42 },
        { item_id: 7, unit: 'gram', amount: 0.5, stock: null },
      ]);
      expect(await commandJson(db, ['inventory', 'set', '--dispensary', String(shop.id), levels])).toEqual({
        updated: 3,
      });
      const items = await itemsOf(shop.id);
      expect(items.find((item) => item.id === 3)!.prices.map((price) => price.stock)).toEqual([41, 42]);
      expect(items.find((item) => item.id === 7)!.prices[0]!.stock).toBeNull();
      await eventually(async () => {
        const response = await server.app.inject({
          method: 'GET',
          url: '/inventory',
          headers: headersFor(shop.token),
        });
        const entries = response.json() as { item_id: number; stock: number | null; in_stock: boolean }[];
        expect(entries.filter((entry) => entry.item_id === 3).map((entry) => entry.stock)).toEqual([41, 42]);
        expect(entries.find((entry) => entry.item_id === 7)).toMatchObject({ stock: null, in_stock: true });
      });
      // The other dispensary's item 3 is its own.
      expect(
        (await itemsOf(other.id)).find((item) => item.id === 3)!.prices.map((price) => price.stock),
      ).toEqual([10, 0]);
    });

    it('one entry with --item/--unit/--amount/--stock', async () => {
      const result = await commandJson(db, [
        'inventory',
        'set',
        '--dispensary',
        String(shop.id),
        '--item',
        '1',
        '--unit',
        'unit',
        '--amount',
        '1',
        '--stock',
        '9',
      ]);
      expect(result).toEqual({ updated: 1 });
      expect((await itemsOf(shop.id)).find((item) => item.id === 1)!.prices[0]!.stock).toBe(9);
    });

    it("--item ext:<external_id> names the item by the point of sale's id, here and in menu commands", async () => {
      await server.services.menus.patchItem(shop.id, 3, { external_id: 'pos-cli-3' });
      const dispensary = ['--dispensary', String(shop.id)];
      const byExternal = ['--item', 'ext:pos-cli-3'];
      expect(
        await commandJson(db, [
          'inventory',
          'set',
          ...dispensary,
          ...byExternal,
          '--unit',
          'gram',
          '--amount',
          '1',
          '--stock',
          '6',
        ]),
      ).toEqual({ updated: 1 });
      expect(
        await commandJson(db, ['menu', 'set-active', ...dispensary, ...byExternal, 'false', '--json']),
      ).toEqual({
        dispensary_id: shop.id,
        item_id: 'ext:pos-cli-3',
        active: false,
      });
      const item = (await itemsOf(shop.id)).find((entry) => entry.id === 3)!;
      expect([
        item.active,
        item.prices.find((price) => price.amount === 1 && price.unit === 'gram')?.stock,
      ]).toEqual([false, 6]);
      await server.services.menus.patchItem(shop.id, 3, { active: true, external_id: '' });
      const unknown = failed(
        await runCli(db, ['menu', 'delete-item', ...dispensary, '--item', 'ext:nope', '--json']),
      );
      expect(unknown).toMatchObject({ code: 'not_found', message: expect.stringContaining('ext:nope') });
    });

    it('menu import-lab-result: an OpenTHC Lab_Result file onto one item; --json answers what was mapped and skipped', async () => {
      const dispensary = ['--dispensary', String(other.id)];
      const result = (await commandJson(db, [
        'menu',
        'import-lab-result',
        ...dispensary,
        '--item',
        '7',
        'test/fixtures/openthc/lab-result.json',
      ])) as { item: { id: number }; mapped: unknown; skipped: { path: string }[] };
      expect(result.item.id).toBe(7);
      expect(result.mapped).toEqual({
        cannabinoids: 7,
        terpenes: 3,
        batch: ['lab_name', 'lab_license', 'tested_at', 'coa_url'],
      });
      expect(result.skipped.map((entry) => entry.path)).toEqual([
        'metric_list[10]',
        'metric_list[11]',
        'metric_list[12]',
        'metric_list[13]',
      ]);
      const item = (await itemsOf(other.id)).find((entry) => entry.id === 7)!;
      expect(item.cannabinoids.map((analyte) => analyte.code)).toContain('d9-thca');
      expect(item.batch).toMatchObject({ lab_name: 'Cascade Test Labs' });
      const bad = file('bad-lab-result.json', {
        metric_list: [{ stub: 'cbd', qom: 'lots', uom: 'percent' }],
      });
      const refused = failed(
        await runCommand(db, ['menu', 'import-lab-result', ...dispensary, '--item', '7', bad, '--json']),
      );
      expect(refused).toMatchObject({ code: 'invalid_request', problems: [{ field: 'metric_list[0].qom' }] });
    });

    it('a batch with one entry that matches nothing: exit 1 naming its index, nothing applied', async () => {
      const before = await itemsOf(shop.id);
      const levels = file('bad-levels.json', [
        { item_id: 3, unit: 'gram', amount: 1, stock: 0 },
        { item_id: 99, unit: 'gram', amount: 1, stock: 5 },
      ]);
      const [unmatched, partial] = await Promise.all([
        runCli(db, ['inventory', 'set', '--dispensary', String(shop.id), levels, '--json']),
        runCommand(db, [
          'inventory',
          'set',
          '--dispensary',
          String(shop.id),
          '--item',
          '3',
          '--unit',
          'gram',
          '--json',
        ]),
      ]);
      const error = failed(unmatched);
      expect(error.code).toBe('unprocessable');
      expect(error.problems).toEqual([
        { field: '[1]', message: expect.stringContaining('matches no price entry') },
      ]);
      expect(failed(partial)).toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining('--stock'),
      });
      expect(await itemsOf(shop.id)).toEqual(before);
    });
  });

  describe('dispensary show and update', () => {
    it('show --json: the id and every store field, unknown ones null, currency USD', async () => {
      expect(await commandJson(db, ['dispensary', 'show', String(other.id)])).toEqual({
        id: other.id,
        name: 'Other Shop',
        ...UNSET_STORE_INFO,
        updated_at: expect.any(String),
      });
    });

    it('update --menu-types rec,med sets the menus the store sells from; "null" takes it out again', async () => {
      const set = await commandJson<Record<string, unknown>>(db, [
        'dispensary',
        'update',
        String(other.id),
        '--menu-types',
        'med,rec',
      ]);
      expect(set.menu_types).toEqual(['rec', 'med']);
      const cleared = await commandJson<Record<string, unknown>>(db, [
        'dispensary',
        'update',
        String(other.id),
        '--menu-types',
        'null',
      ]);
      expect(cleared).not.toHaveProperty('menu_types');
    });

    it('update with flags (hours as JSON): stored, and served by GET /store', async () => {
      const hours = Object.fromEntries(
        ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [
          day,
          day === 'sunday' ? { closed: true } : { open: '10:00', close: '20:00' },
        ]),
      );
      const updated = await commandJson<Record<string, unknown>>(db, [
        'dispensary',
        'update',
        String(shop.id),
        '--city',
        'Oakland',
        '--postal-code',
        '94607',
        '--timezone',
        'America/Los_Angeles',
        '--currency',
        'CAD',
        '--phone',
        '+1 510 555 0100',
        '--hours',
        JSON.stringify(hours),
      ]);
      expect(updated).toMatchObject({ id: shop.id, city: 'Oakland', postal_code: '94607', currency: 'CAD' });
      await eventually(async () => {
        const store = await server.app.inject({
          method: 'GET',
          url: '/store',
          headers: headersFor(shop.token),
        });
        expect(store.json()).toMatchObject({
          city: 'Oakland',
          postal_code: '94607',
          timezone: 'America/Los_Angeles',
          currency: 'CAD',
          phone: '+1 510 555 0100',
          hours: {
            sunday: { open: null, close: null, closed: true },
            monday: { open: '10:00', close: '20:00', closed: false },
          },
        });
      });
    });

    it('update --from-file, with "null" clearing a field', async () => {
      const fields = file('store.json', {
        website: 'https://greenleaf.example',
        email: 'hi@greenleaf.example',
      });
      const updated = await commandJson<Record<string, unknown>>(db, [
        'dispensary',
        'update',
        String(shop.id),
        '--from-file',
        fields,
        '--phone',
        'null',
      ]);
      expect(updated).toMatchObject({ website: 'https://greenleaf.example', phone: null, city: 'Oakland' });
      expect((await server.services.dispensaries.storeInfo(shop.id)).email).toBe('hi@greenleaf.example');
    });

    it('a bad field: exit 1 naming it, nothing changed; nothing to update: exit 1', async () => {
      const before = await server.services.dispensaries.storeInfo(shop.id);
      const [bad, nothing] = await Promise.all([
        runCommand(db, [
          'dispensary',
          'update',
          String(shop.id),
          '--timezone',
          'Mars/Base',
          '--city',
          'Elsewhere',
          '--json',
        ]),
        runCli(db, ['dispensary', 'update', String(shop.id), '--json']),
      ]);
      expect(failed(bad).problems).toEqual([
        { field: 'timezone', message: 'must be an IANA time zone name such as America/Los_Angeles' },
      ]);
      expect(failed(nothing)).toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining('Nothing to update'),
      });
      expect(await server.services.dispensaries.storeInfo(shop.id)).toEqual(before);
    });
  });

  describe('menu upsert, patch-item, delete-item', () => {
    it('upsert --json: {created, updated}, the answer (and the items) the sync API gives for the same file', async () => {
      const items = [
        {
          id: 3,
          name: 'Blue Dream',
          product_type: 'Flower',
          prices: [{ unit: 'gram', amount: 1, price: 12, stock: 41 }],
        },
        {
          id: 12,
          name: 'Sour Diesel',
          product_type: 'Flower',
          prices: [{ unit: 'gram', amount: 1, price: 11, stock: 6 }],
        },
      ];
      const cli = await commandJson(db, [
        'menu',
        'upsert',
        '--dispensary',
        String(shop.id),
        file('upsert.json', items),
      ]);
      expect(cli).toEqual({ created: [12], updated: [3] });
      const admin = adminCaller(server.app, operatorKey);
      const api = await admin('PATCH', `/dispensaries/${other.id}/menu/items`, items);
      expect(api.json()).toEqual(cli);
      const mine = (await admin('GET', `/dispensaries/${shop.id}/menu`)).json();
      const theirs = (await admin('GET', `/dispensaries/${other.id}/menu`)).json();
      const upserted = (menu: { id: number }[]) => menu.filter((item) => item.id === 3 || item.id === 12);
      expect(upserted(mine)).toEqual(upserted(theirs));
      expect(upserted(mine).length).toBe(2);
    });

    it("patch-item '{\"active\": false}' --json: the canonical item; it leaves Form B's menu", async () => {
      const args = ['menu', 'patch-item', '--dispensary', String(shop.id), '--item', '12'];
      const [item, bad] = await Promise.all([
        commandJson<Record<string, unknown>>(db, [...args, '{"active": false}']),
        runCommand(db, [
          'menu',
          'patch-item',
          '--dispensary',
          String(shop.id),
          '--item',
          '3',
          '{"thc": 500}',
          '--json',
        ]),
      ]);
      expect(item).toMatchObject({ id: 12, name: 'Sour Diesel', active: false, prices: [{ stock: 6 }] });
      expect(failed(bad).problems?.map((problem) => problem.field)).toEqual(['thc']);
      await eventually(async () => {
        const menu = await server.app.inject({
          method: 'GET',
          url: '/menu',
          headers: headersFor(shop.token),
        });
        expect(menu.json().map((entry: { id: number }) => entry.id)).toEqual([1, 3, 7]);
      });
      expect((await itemsOf(shop.id)).find((entry) => entry.id === 3)!.thc).toBeNull();
    });

    it('delete-item --json: {dispensary_id, item_id, deleted}; a second time: not found', async () => {
      const args = ['menu', 'delete-item', '--dispensary', String(shop.id), '--item', '12'];
      expect(await commandJson(db, args)).toEqual({ dispensary_id: shop.id, item_id: 12, deleted: true });
      expect((await itemsOf(shop.id)).map((item) => item.id)).toEqual([1, 2, 3, 7]);
      expect((await itemsOf(other.id)).map((item) => item.id)).toContain(12);
      expect(failed(await runCommand(db, [...args, '--json']))).toMatchObject({ code: 'not_found' });
    });
  });

  describe('audit', () => {
    let all: AuditEntry[];

    it('--json: every write, who made it (cli or key:NAME), on which dispensary, with counts', async () => {
      all = await commandJson<AuditEntry[]>(db, ['audit']);
      expect(Object.keys(all[0]!).sort()).toEqual(['action', 'actor', 'at', 'detail', 'dispensary_id', 'id']);
      expect(all.map((entry) => `${entry.actor} ${entry.action}`)).toEqual(
        expect.arrayContaining([
          'cli dispensary.create',
          'cli credential.issue',
          'cli menu.replace',
          'cli admin_key.create',
          'cli admin_key.revoke',
          'cli inventory.update',
          'cli dispensary.update',
          'cli menu.upsert',
          'cli menu.delete_item',
          'key:pos menu.upsert',
        ]),
      );
      expect(all.find((entry) => entry.action === 'inventory.update')).toMatchObject({
        dispensary_id: shop.id,
        detail: { price_entries: 3 },
      });
      expectNoSecrets(JSON.stringify(all), secrets);
    });

    it('--dispensary and --since filter', async () => {
      const middle = all[Math.floor(all.length / 2)]!.at;
      const [mine, later] = await Promise.all([
        commandJson<AuditEntry[]>(db, ['audit', '--dispensary', String(other.id)]),
        commandJson<AuditEntry[]>(db, ['audit', '--since', middle]),
      ]);
      expect(mine.length).toBeGreaterThanOrEqual(3);
      expect(new Set(mine.map((entry) => entry.dispensary_id))).toEqual(new Set([other.id]));
      expect(later.length).toBeGreaterThan(0);
      expect(later.length).toBeLessThan(all.length);
      expect(later.every((entry) => entry.at > middle)).toBe(true);
    });

    it('a bad --since: exit 1; as a table, still no secret', async () => {
      const [since, table] = await Promise.all([
        runCli(db, ['audit', '--since', 'last tuesday', '--json']),
        runCommand(db, ['audit']),
      ]);
      expect(failed(since)).toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining('--since'),
      });
      expect(table.code).toBe(0);
      expect(table.stdout).toContain('ACTOR');
      expect(table.stdout).toContain('key:pos');
      expectNoSecrets(table.stdout, secrets);
    });
  });
  describe('special schedule', () => {
    it('prints when each special applies in the coming days, as a table or --json; --days is 1 to 31', async () => {
      const added = await commandJson<{ id: number }>(db, [
        'special',
        'add',
        String(shop.id),
        '--name',
        'Happy hour',
        '--kind',
        'percent_off',
        '--value',
        '20',
        '--brands',
        'Acme',
        '--daily-start',
        '16:00',
        '--daily-end',
        '18:00',
      ]);
      const schedule = await commandJson<{
        from: string;
        to: string;
        timezone: string | null;
        specials: { id: number; periods: { starts_at: string; ends_at: string | null }[] }[];
      }>(db, ['special', 'schedule', String(shop.id), '--days', '2']);
      expect(Date.parse(schedule.to) - Date.parse(schedule.from)).toBe(2 * 86_400_000);
      const [special] = schedule.specials;
      expect(special?.id).toBe(added.id);
      // Two days hold two or three daily windows, each ending at 18:00 in the store's zone (an earlier
      // test of this file may have given the store one).
      const zone = schedule.timezone ?? 'UTC';
      const local = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
      expect(special?.periods.length).toBeGreaterThanOrEqual(2);
      expect(special?.periods.length).toBeLessThanOrEqual(3);
      for (const period of special!.periods) expect(local.format(Date.parse(period.ends_at!))).toBe('18:00');
      const table = await runCommand(db, ['special', 'schedule', String(shop.id)]);
      expect(table).toMatchObject({ code: 0, stderr: '' });
      expect(table.stdout).toMatch(/ID\s+NAME\s+STARTS\s+ENDS/);
      expect(table.stdout).toContain(`(times in ${zone})`);
      const refused = await runCli(db, ['special', 'schedule', String(shop.id), '--days', '32']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('--days must be a whole number of days from 1 to 31');
      await commandJson(db, ['special', 'remove', String(shop.id), String(added.id)]);
    });
  });
});
