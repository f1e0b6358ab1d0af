import { Agent, request } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MENU_FORMS } from '../../src/forms/index.js';
import { createServices, type Services } from '../../src/services/index.js';
import { openStore } from '../../src/store/open.js';
import { assertBuilt, type ServerProcess, startServe } from '../helpers/cli.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';
import { BLUE_DREAM } from '../helpers/fixtures.js';

assertBuilt();

const SLOW = { timeout: 90_000 };
/** Reads measured per form, after as many to warm up. */
const READS = 2_500;
/** Clients that read at once in the crowded test, how many times they do, and the items of their menu. */
const CROWD = 32;
const CROWD_ROUNDS = 10;
const CROWD_ITEMS = 500;

/**
 * The bytes V8 moved to the old generation in young-generation collections (`--trace-gc-nvp` prints one
 * line per collection), from the lines of `output`.
 */
function promotedBytes(output: string): { scavenges: number; promoted: number } {
  let scavenges = 0;
  let promoted = 0;
  for (const line of output.split('\n')) {
    if (!line.includes('gc=s ')) continue;
    scavenges++;
    promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
  }
  return { scavenges, promoted };
}

/**
 * A menu read leaves nothing behind that outlives it: objects made per request die young. One that
 * survived two young collections per request (an object spread followed by more properties did, in
 * V8 on Node 20) fills the old generation at thousands of reads a second, and each mark-compact that
 * empties it again pauses every connection for milliseconds (bench/PROFILE.md, round six).
 */
describe(`menu reads promote nothing to the old generation (${DATABASE_KIND})`, SLOW, () => {
  let database: TestDatabase;
  let services: Services;
  let formB: Record<string, string>;
  let formA: string;
  // Each test gets a server of its own: what V8 learned from one test's reads must not decide the next.
  let server: ServerProcess;
  let agent: Agent;

  beforeAll(async () => {
    database = await testDatabase();
    services = createServices(await openStore(database.address), MENU_FORMS);
    const dispensary = await services.dispensaries.create('Garbage');
    const credential = await services.credentials.issue('garbage-integrator');
    await services.menus.replace(dispensary.id, services.menus.validate([BLUE_DREAM]));
    formB = {
      store: dispensary.token,
      username: credential.username,
      password: credential.password,
      'accept-encoding': 'gzip',
    };
    formA = JSON.stringify({
      username: credential.username,
      password: credential.password,
      collective_token: dispensary.token,
    });
  }, SLOW.timeout);
  afterAll(async () => {
    await services?.store.close();
    await database?.cleanup();
  }, SLOW.timeout);

  beforeEach(async () => {
    // Limits that never refuse: their bookkeeping still runs on every read.
    const never = '1000000000,1000000000';
    server = await startServe(
      database.address,
      // No drain delay: nothing routes to this server, so it may stop at once.
      ['--rate-limit-credential', never, '--rate-limit-address', never, '--drain-delay-ms', '0'],
      // A 1 MiB young generation: a collection every few dozen reads, so that a few thousand reads
      // show whether anything survives them.
      ['--trace-gc-nvp', '--max-semi-space-size=1'],
    );
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
  }, SLOW.timeout);
  afterEach(async () => {
    agent?.destroy();
    await server?.stop();
  }, SLOW.timeout);

  /** One `/menu` request; resolves with its status once the answer has been read to the end. */
  const send = (method: 'GET' | 'POST', headers: Record<string, string>, through: Agent, body?: string) =>
    new Promise<number>((resolve, reject) => {
      const sent = request(new URL('/menu', server.url), { method, headers, agent: through }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      sent.on('error', reject);
      sent.end(body);
    });

  const read = (method: 'GET' | 'POST') =>
    method === 'GET'
      ? send('GET', formB, agent)
      : send('POST', { 'content-type': 'application/json' }, agent, formA);

  const readMany = async (count: number) => {
    for (let index = 0; index < count; index++) {
      expect(await read('GET')).toBe(200);
      expect(await read('POST')).toBe(200);
    }
  };

  /**
   * What reading `READS` times in each form promoted, after as many reads to warm up (and to let
   * whatever a build left to finish, the other codings, settle).
   */
  const measureReads = async () => {
    await readMany(READS);
    const before = server.output().length;
    await readMany(READS);
    return promotedBytes(server.output().slice(before));
  };

  it('Form B and Form A reads, one after another on a kept-alive connection', async () => {
    const { scavenges, promoted } = await measureReads();
    expect(scavenges).toBeGreaterThan(20);
    // With an object spread on the access check's path: 629 and 643 KB here (about 125 bytes per
    // read); without: 28 and 45 KB in all (what the process keeps anyway: compiled code, the feed's polls).
    expect(promoted).toBeLessThan(200 * 1024);
  });

  it('the same reads after a crowd waited together for a menu to be built', async () => {
    // CROWD clients at once ask for a menu the server has not built yet: they all wait while it reads
    // and compresses CROWD_ITEMS items, and that work fills the young generation, so nearly every
    // object made for their requests outlives young collections. Seen a few times, that makes V8
    // pretenure the places in the code that made them (Node's HTTP parser, Fastify's reply), for good.
    const items = Array.from({ length: CROWD_ITEMS }, (_, index) => ({
      ...BLUE_DREAM,
      id: index + 1,
      name: `Blue Dream ${index + 1}`,
    }));
    const crowd = new Agent({ keepAlive: true, maxSockets: CROWD });
    try {
      for (let round = 0; round < CROWD_ROUNDS; round++) {
        const dispensary = await services.dispensaries.create(`Crowded ${round}`);
        await services.menus.replace(dispensary.id, services.menus.validate(items));
        const headers = { ...formB, store: dispensary.token };
        const statuses = await Promise.all(Array.from({ length: CROWD }, () => send('GET', headers, crowd)));
        expect(new Set(statuses)).toEqual(new Set([200]));
      }
    } finally {
      crowd.destroy();
    }
    const { scavenges, promoted } = await measureReads();
    expect(scavenges).toBeGreaterThan(20);
    // With V8's allocation-site pretenuring on: 17-19 MB here (about 3.6 KB per read). That needs a
    // fresh server: after the other test's reads the same crowds did not tip V8. With it off
    // (src/infra/heap-tuning.ts): 31-48 KB.
    expect(promoted).toBeLessThan(200 * 1024);
  });
});
