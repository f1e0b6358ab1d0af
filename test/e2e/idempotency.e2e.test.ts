import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, commandJson, type ServerProcess, startServe } from '../helpers/cli.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';
import { send } from '../helpers/process.js';
import { seedDispensaryAndKey } from '../helpers/seed.js';

assertBuilt();

/**
 * The same new Idempotency-Key sent to two server processes at once: the database holds the claim,
 * so the write is applied once, and both answer with its result.
 */
describe(`Idempotency-Key across two server processes on ${DATABASE_KIND}`, () => {
  let database: TestDatabase;
  let servers: ServerProcess[] = [];
  let seed: Awaited<ReturnType<typeof seedDispensaryAndKey>>;

  beforeAll(async () => {
    database = await testDatabase();
    seed = await seedDispensaryAndKey(database.address);
    servers = await Promise.all([startServe(database.address), startServe(database.address)]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.cleanup();
  });

  it('applies each key once however many processes receive it at the same moment', async () => {
    const keys = Array.from(
      { length: 12 },
      (_, index) => `race-${index}-${Math.random().toString(36).slice(2)}`,
    );
    const answers = await Promise.all(
      keys.flatMap((key, index) =>
        servers.map((server) =>
          send(`${server.url}/admin/v1/dispensaries/${seed.dispensaryId}`, {
            method: 'PATCH',
            headers: {
              authorization: `Bearer ${seed.key}`,
              'content-type': 'application/json',
              'idempotency-key': key,
            },
            body: JSON.stringify({ phone: `555-01${String(index).padStart(2, '0')}` }),
            timeoutMs: 30_000,
          }),
        ),
      ),
    );
    for (let index = 0; index < keys.length; index++) {
      const pair = answers.slice(index * 2, index * 2 + 2);
      for (const answer of pair)
        expect(
          answer.status,
          answer.body +
            servers
              .map((s) => s.output())
              .join('\n')
              .slice(-3000),
        ).toBe(200);
      // One applied it, the other replayed its answer.
      expect(pair.filter((answer) => answer.headers['idempotent-replayed'] === 'true')).toHaveLength(1);
      expect(JSON.parse(pair[0]!.body)).toEqual(JSON.parse(pair[1]!.body));
    }
    const audit = await commandJson<{ action: string }[] | { entries: { action: string }[] }>(
      database.address,
      ['audit', '--dispensary', String(seed.dispensaryId)],
    );
    const entries = Array.isArray(audit) ? audit : audit.entries;
    const updates = entries.filter((entry) => entry.action === 'dispensary.update');
    expect(updates).toHaveLength(keys.length);
  });
});
