import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MENU_FORMS } from '../../src/forms/index.js';
import { createServices, type Services } from '../../src/services/index.js';
import { openStore } from '../../src/store/open.js';
import { assertBuilt, type ServerProcess, startServe } from '../helpers/cli.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';

assertBuilt();

const SLOW = { timeout: 90_000 };

function menu(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    name: `Item ${index + 1}`,
    brand: 'Brand',
    product_type: 'Flower',
    description: `Item ${index + 1}, described at some length so that the menu spans several segments.`,
    active: index % 9 !== 4,
    prices: [{ unit: 'gram', amount: 1, price: 10 + (index % 7), stock: index }],
  }));
}

describe(
  `a snapshot patched after a stock change, read by curl, gzip and Python (${DATABASE_KIND})`,
  SLOW,
  () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let services: Services;
    let headers: string[];
    let dispensaryId: number;

    beforeAll(async () => {
      database = await testDatabase();
      server = await startServe(database.address);
      // Another process's writes (this one's), as a point of sale's sync would be.
      services = createServices(await openStore(database.address), MENU_FORMS);
      const dispensary = await services.dispensaries.create('Patched');
      const credential = await services.credentials.issue('patched-integrator');
      dispensaryId = dispensary.id;
      await services.menus.replace(dispensary.id, services.menus.validate(menu(600)));
      headers = [
        '-H',
        `store: ${dispensary.token}`,
        '-H',
        `username: ${credential.username}`,
        '-H',
        `password: ${credential.password}`,
      ];
    }, SLOW.timeout);
    afterAll(async () => {
      await services?.store.close();
      await server?.stop();
      await database?.cleanup();
    }, SLOW.timeout);

    const curl = (...args: string[]) =>
      execFileSync('curl', ['-s', ...args, ...headers, `${server.url}/menu`], {
        maxBuffer: 64 * 1024 * 1024,
      });

    it('decodes whole, in every decoder, to the identity answer', async () => {
      // Kept once (gzip), then one stock level changes: the next reads patch the kept answer.
      curl('-H', 'accept-encoding: gzip');
      const [item] = (await services.menus.items(dispensaryId))
        .filter((entry) => entry.active)
        .slice(300, 301);
      await services.menus.setStock(dispensaryId, [
        { item_id: item!.id, unit: 'gram', amount: 1, stock: 4321 },
      ]);
      let identity = '';
      for (let tries = 0; tries < 100 && !identity.includes('4321'); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        identity = curl().toString();
      }
      expect(identity).toContain('"stock":4321');
      const gzipped = curl('-H', 'accept-encoding: gzip');
      expect(gzipped.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
      expect(curl('--compressed').toString()).toBe(identity);
      expect(execFileSync('gzip', ['-dc'], { input: gzipped }).toString()).toBe(identity);
      const python = execFileSync(
        'python3',
        ['-c', 'import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))'],
        {
          input: gzipped,
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      expect(python.toString()).toBe(identity);
    });
  },
);
