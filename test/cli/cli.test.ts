import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { secretDigest } from '../../src/auth/secrets.js';
import { buildProgram } from '../../src/cli/main.js';
import { openStore } from '../../src/store/open.js';
import { assertBuilt, commandJson, runCli, runCommand, runInProcess } from '../helpers/cli.js';
import { onPostgres, SAMPLE_MENU, temporaryDirectory } from '../helpers/runtime.js';
import { withServices } from '../helpers/seed.js';

/** Every command of the program as its path (`[]`, `['dispensary']`, `['dispensary', 'create']`...), and whether it has subcommands. */
function commandPaths(command: Command, prefix: string[] = []): { path: string[]; leaf: boolean }[] {
  const own = { path: prefix, leaf: command.commands.length === 0 };
  return [own, ...command.commands.flatMap((sub) => commandPaths(sub, [...prefix, sub.name()]))];
}

assertBuilt();

/*
 * The CLI's commands over a SQLite file, run to the end in this process (runCommand); one test of each
 * command family runs the real built binary as its own process (runCli), with its exit code. These run
 * once, in the sqlite project: the commands reach the database only through the store, which both
 * projects test, and the secret search reads the SQLite file itself.
 */
/** A process of its own starts Node (~0.3 s); on a machine busy with the rest of the suite it can take many seconds. */
const SLOW = { timeout: 90_000 };

/** `--help` of every command, in this process: commander alone answers it (src/cli/main.ts). */
describe.skipIf(onPostgres)('menu-api --help', () => {
  const commands = commandPaths(buildProgram());

  it('covers every command', () => {
    expect(commands.map(({ path }) => path.join(' '))).toEqual(
      expect.arrayContaining([
        '',
        'serve',
        'dispensary create',
        'dispensary list',
        'dispensary rotate-token',
        'dispensary remove',
        'credential issue',
        'credential list',
        'credential revoke',
        'menu import',
        'menu export',
        'menu set-active',
      ]),
    );
  });

  it.each(commands.map(({ path, leaf }) => ({ name: path.join(' ') || '(root)', path, leaf })))(
    '$name --help exits 0 with its usage and --db; a command that runs has --json',
    async ({ path, leaf }) => {
      const result = await runInProcess([...path, '--help']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain(['Usage: menu-api', ...path].join(' '));
      expect(result.stdout).toContain('--db <address>');
      if (leaf && path[0] !== 'help') expect(result.stdout).toContain('--json');
    },
  );

  it('the built binary answers --help as its own process, with every command', SLOW, async () => {
    const result = await runCli(undefined, ['--help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    for (const { path } of commands.filter((command) => command.path.length === 1)) {
      expect(result.stdout).toContain(`\n  ${path[0]} `);
    }
  });
});

describe.skipIf(onPostgres)('menu-api commands over one database', SLOW, () => {
  const directory = temporaryDirectory();
  const db = join(directory.path, 'cli.db');
  const file = (name: string, text: string) => {
    const path = join(directory.path, name);
    writeFileSync(path, text);
    return path;
  };
  /** Every secret the commands printed: none may be stored as it is. */
  const secrets: string[] = [];
  let first: { id: number; name: string; token: string };
  let second: { id: number; name: string; token: string };

  afterAll(() => directory.remove());

  /**
   * What `menu export --dispensary ID [--form FORM]` prints, read in this process: for tests that check
   * what another command left in the database (`menu export` itself is tested below).
   */
  const exported = (dispensary: number, form = 'canonical') =>
    withServices(db, ({ menus }) => menus.export(dispensary, form, 'json'));

  it('an empty database says what to do first', async () => {
    // A command that only reads never creates a database: the server (here, the store) made this one.
    await (await openStore(db)).close();
    const [result, credentials] = await Promise.all([
      runCommand(db, ['dispensary', 'list']),
      commandJson(db, ['credential', 'list']),
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('menu-api dispensary create --name NAME');
    expect(credentials).toEqual([]);
  });

  it('dispensary create prints {id, name, token} once, and the token as text without --json', async () => {
    first = await commandJson(db, ['dispensary', 'create', '--name', 'Green Leaf Collective']);
    expect(Object.keys(first).sort()).toEqual(['id', 'name', 'token']);
    expect(first).toMatchObject({ id: 1, name: 'Green Leaf Collective' });
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{22,}$/);

    const human = await runCli(db, ['dispensary', 'create', '--name', '  Second Store ']);
    expect(human.code).toBe(0);
    const token = /Token \(shown once, store it now\): (\S+)/.exec(human.stdout)?.[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(human.stdout).toContain('Created dispensary 2 (Second Store)');
    second = { id: 2, name: 'Second Store', token: token! };
    secrets.push(first.token, second.token);
  });

  it('dispensary create refuses a missing or empty name and says how to use it', async () => {
    const [missing, empty] = await Promise.all([
      runInProcess(['--db', db, 'dispensary', 'create']),
      runCommand(db, ['dispensary', 'create', '--name', '   ']),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("required option '--name <name>' not specified");
    expect(missing.stderr).toContain('(run with --help for usage)');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('1 to 200 characters');
  });

  it('dispensary rotate-token prints {id, token}: a new token', async () => {
    const rotated = await commandJson<{ id: number; token: string }>(db, ['dispensary', 'rotate-token', '1']);
    expect(Object.keys(rotated).sort()).toEqual(['id', 'token']);
    expect(rotated.id).toBe(1);
    expect(rotated.token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(rotated.token).not.toBe(first.token);
    secrets.push(rotated.token);
    first = { ...first, token: rotated.token };
  });

  it('credential issue prints {username, password} once; a username is never issued twice', async () => {
    const [issued, human] = await Promise.all([
      commandJson<{ username: string; password: string }>(db, [
        'credential',
        'issue',
        '--username',
        'acme-integrations',
      ]),
      runCommand(db, ['credential', 'issue', '--username', 'pos-vendor']),
    ]);
    expect(Object.keys(issued).sort()).toEqual(['password', 'username']);
    expect(issued.username).toBe('acme-integrations');
    expect(issued.password).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    secrets.push(issued.password);

    expect(human.code).toBe(0);
    const password = /Password \(shown once, send it securely\): (\S+)/.exec(human.stdout)?.[1];
    expect(password).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    secrets.push(password!);

    const [again, bad] = await Promise.all([
      runCommand(db, ['credential', 'issue', '--username', 'acme-integrations']),
      runCli(db, ['credential', 'issue', '--username', 'has space']),
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: .*acme-integrations.*Choose another username\.\n$/);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('letters, digits');
  });

  it('credential list shows usernames and dates, never a password or hash', async () => {
    const listed = await commandJson<Record<string, unknown>[]>(db, ['credential', 'list']);
    expect(listed.map((credential) => credential.username).sort()).toEqual([
      'acme-integrations',
      'pos-vendor',
    ]);
    for (const credential of listed) {
      expect(credential).toMatchObject({ created_at: expect.stringMatching(/^\d{4}-/), revoked_at: null });
      expect(Object.keys(credential).filter((key) => /password|hash|secret/i.test(key))).toEqual([]);
      expect(JSON.stringify(credential)).not.toMatch(/scrypt|\$/);
    }
  });

  it('no printed token or password is stored as it is in the SQLite files', () => {
    expect(secrets).toHaveLength(5);
    const files = readdirSync(directory.path).filter((name) => name.startsWith('cli.db'));
    expect(files).toContain('cli.db');
    const bytes = Buffer.concat(files.map((name) => readFileSync(join(directory.path, name))));
    // The search does find what is stored: the names, and the current token's digest.
    expect(bytes.includes('Green Leaf Collective')).toBe(true);
    expect(bytes.includes('acme-integrations')).toBe(true);
    expect(bytes.includes(secretDigest(first.token))).toBe(true);
    for (const secret of secrets) {
      expect(bytes.includes(secret), `secret ${secret.slice(0, 4)}… found in the database`).toBe(false);
      expect(bytes.includes(Buffer.from(secret, 'utf16le'))).toBe(false);
    }
  });

  it('menu import reads a JSON file in any form’s names and reports the counts', async () => {
    const formA = SAMPLE_MENU.map(({ brand, prices, ...rest }) => ({
      ...rest,
      ...(brand === undefined ? {} : { brand_name: brand }),
      product_prices: prices,
    }));
    const path = file('menu.json', JSON.stringify(formA));
    const [report, human] = await Promise.all([
      commandJson(db, ['menu', 'import', '--dispensary', '1', path]),
      runCommand(db, ['menu', 'import', '--dispensary', '1', path]),
    ]);
    expect(report).toEqual({ dispensary_id: 1, dry_run: false, items: 4, active_items: 3, price_entries: 4 });
    expect(human).toMatchObject({
      stderr: '',
      stdout: 'Imported 4 items (3 active, 4 price entries) into dispensary 1.\n',
    });
  });

  it('menu import reads a CSV file with one row per price entry; --dry-run changes nothing', async () => {
    const csv = file(
      'menu.csv',
      [
        'id,name,brand,product_type,flavors,active,unit,amount,price,stock',
        '10,Sour Diesel,Coast,Flower,Diesel;Citrus,true,gram,1,11,5',
        '10,,,,,,ounce,0.25,70,',
        '11,Mint Tin,,Edible,,false,unit,1,9.5,',
      ].join('\n'),
    );
    const dry = await runCommand(db, ['menu', 'import', '--dispensary', '2', '--dry-run', csv]);
    expect(dry).toMatchObject({
      code: 0,
      stdout: 'Would import 2 items (1 active, 3 price entries) into dispensary 2.\n',
    });
    expect(JSON.parse(await exported(2))).toEqual([]);

    const report = await commandJson(db, ['menu', 'import', '--dispensary', '2', csv]);
    expect(report).toEqual({ dispensary_id: 2, dry_run: false, items: 2, active_items: 1, price_entries: 3 });
    const items = JSON.parse(await exported(2));
    expect(items.map((item: { id: number }) => item.id)).toEqual([10, 11]);
    expect(items[0]).toMatchObject({
      flavors: ['Diesel', 'Citrus'],
      prices: [{ price: 11, stock: 5 }, { price: 70 }],
    });
  });

  it('a bad file exits 1, reports every problem with its index or line, and changes nothing', async () => {
    const before = await exported(1);
    const bad = file(
      'bad.json',
      JSON.stringify([
        { id: 1, name: 'Fine', product_type: 'Flower' },
        { id: 2, name: '', product_type: 'Flower' },
        { id: 3, name: 'C', product_type: 'Soap' },
        { id: 4, name: 'D', product_type: 'Flower', thc: 120 },
        { id: 5, name: 'E', product_type: 'Flower', prices: [{ unit: 'gram', amount: 1, price: 1.234 }] },
        { id: 6, name: 'F', product_type: 'Flower', prices: [{ unit: 'pound', amount: 1, price: 1 }] },
        { id: 1, name: 'G', product_type: 'Flower' },
        { id: 8, name: 'H', product_type: 'Flower', colour: 'green' },
      ]),
    );
    const badCsv = file(
      'bad.csv',
      'id,name,product_type,unit,amount,price\n1,A,Flower,gram,1,5\n1,,,gram,2,lots\n2,B,Wood,gram,1,5\n',
    );
    const [result, json] = await Promise.all([
      runCli(db, ['menu', 'import', '--dispensary', '1', bad]),
      runCommand(db, ['menu', 'import', '--dispensary', '1', badCsv, '--json']),
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: The menu was rejected \(7 problems\), nothing was changed/);
    for (const line of [
      '[1].name: must not be empty',
      '[2].product_type: must be one of',
      '[3].thc: must be between 0 and 100',
      '[4].prices[0].price: must be a non-negative amount with at most two decimals',
      '[5].prices[0].unit: must be one of gram, ounce, unit',
      '[6].id: repeats id 1 of item [0]',
      '[7].colour: is not a known field',
    ]) {
      expect(result.stderr).toContain(`  ${line}`);
    }

    expect(json.code).toBe(1);
    const { error } = JSON.parse(json.stdout);
    expect(error.code).toBe('invalid_request');
    const reported = error.problems.map(
      (p: { field: string; message: string }) => `${p.field}: ${p.message}`,
    );
    expect(reported).toEqual(
      expect.arrayContaining([
        'line 3, price: must be a number',
        expect.stringMatching(/^line 4, product_type: must be one of/),
      ]),
    );
    expect(await exported(1)).toBe(before);
  });

  it('menu import explains what to do about a file it cannot use', async () => {
    const [unknownKind, missing, notJson, noDispensary] = await Promise.all([
      runCommand(db, ['menu', 'import', '--dispensary', '1', file('menu.txt', '[]')]),
      runCommand(db, ['menu', 'import', '--dispensary', '1', join(directory.path, 'nope.json')]),
      runCommand(db, ['menu', 'import', '--dispensary', '1', file('broken.json', '[{')]),
      runCommand(db, ['menu', 'import', '--dispensary', '99', file('empty.json', '[]')]),
    ]);
    expect(unknownKind.code).toBe(1);
    expect(unknownKind.stderr).toContain('name it .json or .csv, or pass --format json|csv');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Cannot read');
    expect(missing.stderr).toContain('ENOENT');
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain('not valid JSON');
    expect(noDispensary.code).toBe(1);
    expect(noDispensary.stderr).toContain(
      'There is no dispensary 99. List them with: npx menu-api dispensary list',
    );
  });

  it('menu export writes canonical, Form A and Form B JSON, and CSV', async () => {
    const exportWith = (...args: string[]) =>
      runCommand(db, ['menu', 'export', '--dispensary', '1', ...args]);
    const [canonicalOut, formAOut, formBOut, csv, formACsv, badForm] = await Promise.all([
      exportWith('--form', 'canonical'),
      exportWith('--form', 'a'),
      exportWith('--form', 'b'),
      exportWith('--format', 'csv'),
      exportWith('--form', 'a', '--format', 'csv'),
      runInProcess(['--db', db, 'menu', 'export', '--dispensary', '1', '--form', 'c']),
    ]);
    const canonical = JSON.parse(canonicalOut.stdout);
    expect(canonical.map((item: { id: number }) => item.id)).toEqual([1, 2, 3, 7]);
    expect(canonical[2]).toMatchObject({
      brand: 'Emerald Farms',
      thc: 21.5,
      image: 'https://img.example/blue.jpg',
    });

    const formA = JSON.parse(formAOut.stdout);
    expect(formA.map((item: { id: number; active: boolean }) => [item.id, item.active])).toEqual([
      [1, true],
      [2, false],
      [3, true],
      [7, true],
    ]);
    expect(formA[2]).toMatchObject({
      brand_name: 'Emerald Farms',
      product_prices: [{ unit: 'gram', amount: 1, price: 12 }, {}],
    });

    const formB = JSON.parse(formBOut.stdout);
    expect(formB.map((item: { id: number }) => item.id)).toEqual([1, 3, 7]);
    expect(formB[1]).toMatchObject({ type: 'Flower', brand: 'Emerald Farms', brand_name: 'Emerald Farms' });

    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id,name,brand,product_type,/);
    expect(lines).toHaveLength(1 + 5); // one row per price entry, one for the item without prices

    expect(formACsv.code).toBe(1);
    expect(formACsv.stderr).toContain('drop --form or use --format json');
    expect(badForm.code).toBe(1);
    expect(badForm.stderr).toContain('Allowed choices are canonical, a, b');
  });

  it('menu set-active hides and shows one item, and says how to find item ids', async () => {
    const [hidden, shown, unknownItem, notBoolean] = await Promise.all([
      commandJson(db, ['menu', 'set-active', '--dispensary', '1', '--item', '3', 'false']),
      runCommand(db, ['menu', 'set-active', '--dispensary', '1', '--item', '2', 'true']),
      runCommand(db, ['menu', 'set-active', '--dispensary', '1', '--item', '99', 'true']),
      runCommand(db, ['menu', 'set-active', '--dispensary', '1', '--item', '2', 'maybe']),
    ]);
    expect(hidden).toEqual({ dispensary_id: 1, item_id: 3, active: false });
    expect(shown.stdout).toBe('Item 2 of dispensary 1 is now active.\n');
    const formA = JSON.parse(await exported(1, 'a'));
    expect(formA.map((item: { id: number; active: boolean }) => [item.id, item.active])).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [7, true],
    ]);

    expect(unknownItem.code).toBe(1);
    expect(unknownItem.stderr).toContain(
      'has no item 99. See its items with: npx menu-api menu export --dispensary 1',
    );
    expect(notBoolean.code).toBe(1);
    expect(notBoolean.stderr).toContain('must be true or false, not "maybe"');
  });

  it('unknown ids and bad ids name the command that lists the right ones', async () => {
    const [rotate, notANumber] = await Promise.all([
      runCommand(db, ['dispensary', 'rotate-token', '99']),
      runCommand(db, ['dispensary', 'remove', 'abc', '--json']),
    ]);
    expect(rotate.code).toBe(1);
    expect(rotate.stderr).toBe(
      'error: There is no dispensary 99. List them with: npx menu-api dispensary list\n',
    );
    expect(notANumber.code).toBe(1);
    expect(JSON.parse(notANumber.stdout)).toEqual({
      error: {
        code: 'invalid_request',
        message: 'The dispensary id must be a positive whole number, not "abc".',
      },
    });
  });

  it('credential revoke revokes once, then points at the list', async () => {
    expect(await commandJson(db, ['credential', 'revoke', 'pos-vendor'])).toEqual({
      username: 'pos-vendor',
      revoked: true,
    });
    // Both at once: the refused second revoke changes nothing the list shows.
    const [again, listed] = await Promise.all([
      runCommand(db, ['credential', 'revoke', 'pos-vendor']),
      commandJson<{ username: string; revoked_at: string | null }[]>(db, ['credential', 'list']),
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      'There is no active credential named pos-vendor. List them with: npx menu-api credential list',
    );
    expect(listed.map((c) => [c.username, c.revoked_at === null]).sort()).toEqual([
      ['acme-integrations', true],
      ['pos-vendor', false],
    ]);
  });

  it('dispensary remove deletes it with its menu; list shows the rest with counts', async () => {
    expect(await commandJson(db, ['dispensary', 'remove', '2', '--yes'])).toEqual({ id: 2, removed: true });
    const [listed, human] = await Promise.all([
      commandJson<Record<string, unknown>[]>(db, ['dispensary', 'list']),
      runCommand(db, ['dispensary', 'list']),
    ]);
    expect(listed).toEqual([
      expect.objectContaining({ id: 1, name: 'Green Leaf Collective', items: 4, active_items: 3 }),
    ]);
    expect(human.stdout).toMatch(
      /^ID\s+NAME\s+ITEMS\s+ACTIVE\s+PUBLIC\s+UPDATED\n1\s+Green Leaf Collective\s+4\s+3\s+private\s+\d{4}-/,
    );
  });

  it('DATABASE_URL selects the database when --db is not given', async () => {
    const result = await runCli(undefined, ['dispensary', 'list', '--json'], { env: { DATABASE_URL: db } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).map((d: { name: string }) => d.name)).toEqual(['Green Leaf Collective']);
  });
});
