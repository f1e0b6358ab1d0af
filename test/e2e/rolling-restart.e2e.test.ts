import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Balancer } from '../helpers/balancer.js';
import { assertBuilt, type ServerProcess, startServe } from '../helpers/cli.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';
import { formBHeaders } from '../helpers/http.js';
import { Load, send, waitForExit } from '../helpers/process.js';
import type { Seed } from '../helpers/runtime.js';
import { createAdminKey, seedDatabase } from '../helpers/seed.js';
import { until } from '../helpers/wait.js';

assertBuilt();

/** Steady rather than flat out: the two cores are shared with the servers and other tests. */
const PAUSE_MS = 20;

/** Each server drains for 300 ms: six checks of the balancer, which then stops sending it connections. */
/** Limits far above what the clients send: this drill counts failures of the restart, not 429s. */
const SERVE_ARGS = [
  '--drain-delay-ms',
  '300',
  '--rate-limit-credential',
  '100000,100000',
  '--rate-limit-admin-key',
  '100000,100000',
  '--rate-limit-address',
  '100000,100000',
];

/**
 * A rolling restart: two servers behind a balancer; each in turn gets SIGTERM and is replaced by a
 * new process while clients read (Form B) and write (sync API) without pause. No request may fail
 * and every write that was answered 200 must be there at the end.
 */
describe(`rolling restart on ${DATABASE_KIND}`, () => {
  let database: TestDatabase;
  let servers: ServerProcess[] = [];
  let balancer: Balancer | undefined;
  let seed: Seed;
  let adminKey: string;

  beforeAll(async () => {
    database = await testDatabase();
    seed = await seedDatabase(database.address);
    adminKey = await createAdminKey(database.address, 'roll');
    servers = await Promise.all([
      startServe(database.address, SERVE_ARGS),
      startServe(database.address, SERVE_ARGS),
    ]);
  }, 90_000);
  afterAll(async () => {
    await balancer?.close();
    await Promise.all(servers.map((server) => server.stop()));
    await database?.cleanup();
  });

  it('restarts each server in turn with 0 failed requests and 0 lost writes', {
    timeout: 90_000,
  }, async () => {
    balancer = await Balancer.start(servers.map((server) => server.url));
    const url = balancer.url;
    const acknowledged: number[] = [];
    let reads = 0;

    const read = () => ({
      label: 'read: ',
      send: () => send(`${url}/menu`, { headers: formBHeaders(seed), timeoutMs: 20_000 }),
      answered: () => reads++,
    });
    let nextId = 1000;
    const write = () => {
      const id = nextId++;
      return {
        label: `write ${id}: `,
        send: () =>
          send(`${url}/admin/v1/dispensaries/${seed.dispensaryId}/menu/items`, {
            method: 'PATCH',
            headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
            body: JSON.stringify([
              {
                id,
                name: `Rolling ${id}`,
                product_type: 'Flower',
                prices: [{ unit: 'gram', amount: 1, price: 9 }],
              },
            ]),
            timeoutMs: 20_000,
          }),
        answered: () => acknowledged.push(id),
      };
    };
    const load = new Load(PAUSE_MS);
    for (const next of [read, read, write, write]) load.add(next);
    /** Until the clients have been answered a few more times: traffic before and after each restart. */
    const moreTraffic = async () => {
      const [readsBefore, writesBefore] = [reads, acknowledged.length];
      await until(
        () => reads >= readsBefore + 4 && acknowledged.length >= writesBefore + 4,
        20_000,
        'reads and writes answered',
      );
    };

    for (let index = 0; index < servers.length; index++) {
      await moreTraffic();
      const old = servers[index]!;
      // The balancer takes it out of rotation when /readyz turns 503 (the drain delay).
      const exited = waitForExit(old.child, 20_000);
      old.child.kill('SIGTERM');
      expect(await exited).toEqual({ code: 0, signal: null });
      const replacement = await startServe(database.address, SERVE_ARGS);
      servers[index] = replacement;
      balancer.setBackends(servers.map((server) => server.url));
      await balancer.whenReady(replacement.url);
    }
    await moreTraffic();
    await load.stop();

    expect(load.failures).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThan(0);
    const menu = await send(`${servers[0]!.url}/admin/v1/dispensaries/${seed.dispensaryId}/menu`, {
      headers: { authorization: `Bearer ${adminKey}` },
    });
    const body = JSON.parse(menu.body) as { id: number }[] | { items: { id: number }[] };
    const ids = new Set((Array.isArray(body) ? body : body.items).map((item) => item.id));
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
  });
});
