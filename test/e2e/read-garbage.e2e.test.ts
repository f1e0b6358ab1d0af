import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  let server: ServerProcess;
  let services: Services;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let formB: Record<string, string>;
  let formA: string;

  beforeAll(async () => {
    database = await testDatabase();
    // Limits that never refuse: their bookkeeping still runs on every read.
    const never = '1000000000,1000000000';
    server = await startServe(
      database.address,
      ['--rate-limit-credential', never, '--rate-limit-address', never],
      // A 1 MiB young generation: a collection every few dozen reads, so that a few thousand reads
      // show whether anything survives them.
      ['--trace-gc-nvp', '--max-semi-space-size=1'],
    );
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
    agent.destroy();
    await services?.store.close();
    await server?.stop();
    await database?.cleanup();
  }, SLOW.timeout);

  const read = (method: 'GET' | 'POST') =>
    new Promise<number>((resolve, reject) => {
      const url = new URL('/menu', server.url);
      const headers = method === 'GET' ? formB : { 'content-type': 'application/json' };
      const sent = request(url, { method, headers, agent }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      sent.on('error', reject);
      sent.end(method === 'POST' ? formA : undefined);
    });

  const readMany = async (count: number) => {
    for (let index = 0; index < count; index++) {
      expect(await read('GET')).toBe(200);
      expect(await read('POST')).toBe(200);
    }
  };

  it('Form B and Form A reads, one after another on a kept-alive connection', async () => {
    await readMany(READS);
    const before = server.output().length;
    await readMany(READS);
    const { scavenges, promoted } = promotedBytes(server.output().slice(before));
    expect(scavenges).toBeGreaterThan(20);
    // With an object spread on the access check's path: 629 and 643 KB here (about 125 bytes per
    // read); without: 28 and 45 KB in all (what the process keeps anyway: compiled code, the feed's polls).
    expect(promoted).toBeLessThan(200 * 1024);
  });
});
