import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.js';
import { DEMO, DEMO_STORE, ensureDemo } from '../../src/demo/seed.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import { contractCheck } from '../helpers/contract.js';
import { type TestDatabase, testDatabase } from '../helpers/database.js';
import { GENEROUS_LIMITS, TEST_SCRYPT } from '../helpers/runtime.js';

const demoHeaders = { store: DEMO.token, username: DEMO.username, password: DEMO.password };

describe('the demo dispensary (serve --demo)', () => {
  let database: TestDatabase;
  let runtime: Runtime;
  beforeAll(async () => {
    database = await testDatabase();
    runtime = await createRuntime(
      { ...DEFAULTS, database: database.address, demo: true, ...GENEROUS_LIMITS },
      { logger: false, scryptCost: TEST_SCRYPT, contractCheck },
    );
  });
  afterAll(async () => {
    await runtime?.close();
    await database?.cleanup();
  });

  it('is a complete, realistic store: /store has an address, hours, a phone, a time zone, every field', async () => {
    const response = await runtime.app.inject({ method: 'GET', url: '/store', headers: demoHeaders });
    expect(response.statusCode).toBe(200);
    const store = response.json() as Record<string, unknown>;
    for (const [field, value] of Object.entries(store)) expect(value, field).not.toBeNull();
    expect(store).toMatchObject({
      name: 'Demo Collective',
      address: DEMO_STORE.address,
      city: 'Oakland',
      phone: DEMO_STORE.phone,
      timezone: 'America/Los_Angeles',
      currency: 'USD',
    });
    const hours = store.hours as Record<string, unknown>;
    expect(Object.keys(hours)).toHaveLength(7);
  });

  it('a second start changes nothing', async () => {
    const before = (await runtime.app.inject({ method: 'GET', url: '/store', headers: demoHeaders })).json();
    await ensureDemo(runtime.services);
    const after = (await runtime.app.inject({ method: 'GET', url: '/store', headers: demoHeaders })).json();
    expect(after).toEqual(before);
    expect((await runtime.services.dispensaries.list()).length).toBe(1);
  });
});
