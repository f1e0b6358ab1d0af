import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, type ServerProcess, startServe } from '../helpers/cli.js';
import { DATABASE_KIND, onPostgres } from '../helpers/database.js';
import { freshDatabase } from '../helpers/fresh-database.js';
import { formBHeaders, rawRequest } from '../helpers/http.js';
import type { Seed } from '../helpers/runtime.js';
import { seedDatabase } from '../helpers/seed.js';

assertBuilt();

/** Menus the way a client sees them: the ids Form B answers, or the status when it is not 200. */
async function activeIds(server: ServerProcess, seed: Seed): Promise<string> {
  const response = await rawRequest(server.url, {
    method: 'GET',
    path: '/menu',
    headers: Object.entries(formBHeaders(seed)),
  });
  if (response.status !== 200) return `status ${response.status}`;
  return (JSON.parse(response.body) as { id: number }[]).map((item) => item.id).join();
}

/**
 * How long after `since` each server first showed `expected`, measured at the start of the request
 * that showed it (so the cost of answering, scrypt for a refused password on a busy machine say, is
 * not counted as propagation); asking every 20 ms for at most `limitMs`. Infinity when it never did.
 */
async function millisecondsUntil(
  servers: ServerProcess[],
  seed: Seed,
  expected: string,
  since: number,
  limitMs: number,
): Promise<number[]> {
  return Promise.all(
    servers.map(async (server) => {
      while (Date.now() - since < limitMs) {
        const asked = Date.now();
        if ((await activeIds(server, seed)) === expected) return asked - since;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return Number.POSITIVE_INFINITY;
    }),
  );
}

// On PostgreSQL the servers poll only once a minute, so what they see within a second came by
// LISTEN/NOTIFY; on SQLite the periodic poll (250 ms) is the mechanism.
const serveArgs = onPostgres ? ['--change-poll-ms', '60000'] : [];

describe(`two server processes over one ${DATABASE_KIND} database`, () => {
  const database = freshDatabase();
  let first: ServerProcess;
  let second: ServerProcess;
  let seed: Seed;
  beforeAll(async () => {
    seed = await seedDatabase(database.address);
    [first, second] = await Promise.all([
      startServe(database.address, serveArgs),
      startServe(database.address, serveArgs),
    ]);
  });
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  });

  it('listen on different ports and serve the same data', async () => {
    expect(new URL(first.url).port).not.toBe(new URL(second.url).port);
    expect(await activeIds(first, seed)).toBe('1,3,7');
    expect(await activeIds(second, seed)).toBe('1,3,7');
  });

  it('a menu change written by the command line is served by both within one second', async () => {
    const result = await runCli(database.address, [
      'menu',
      'set-active',
      '--dispensary',
      String(seed.dispensaryId),
      '--item',
      '3',
      'false',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const delays = await millisecondsUntil([first, second], seed, '1,7', Date.now(), 5_000);
    for (const delay of delays) expect(delay).toBeLessThan(1_000);
  });

  it('a credential revoked by the command line is refused by both within one second, though both remembered it', async () => {
    expect(await activeIds(first, seed)).toBe('1,7');
    expect(await activeIds(second, seed)).toBe('1,7');
    const result = await runCli(database.address, ['credential', 'revoke', seed.username]);
    expect(result.code, result.stderr).toBe(0);
    const delays = await millisecondsUntil([first, second], seed, 'status 401', Date.now(), 5_000);
    for (const delay of delays) expect(delay).toBeLessThan(1_000);
  });
});
