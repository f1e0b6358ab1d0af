import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScryptCost } from '../../src/auth/password.js';
import { DEFAULTS, type ServerConfig } from '../../src/config.js';
import { MENU_FORMS } from '../../src/forms/index.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import { createServices, type Services } from '../../src/services/index.js';
import { openStore } from '../../src/store/open.js';
import { contractCheck } from './contract.js';
import { type DatabaseKind, testDatabase } from './database.js';
import { BLUE_DREAM } from './fixtures.js';

export { DATABASE_KIND, onPostgres, onSqlite, type TestDatabase, testDatabase } from './database.js';

/** Cheap scrypt for tests that create many credentials; the hash format and code path are the real ones. */
export const TEST_SCRYPT: ScryptCost = { N: 1024, r: 8, p: 1 };

/**
 * Rate limits and login-guard limits far above anything a test does, so that tests that make many
 * requests quickly from one address with one credential (or many failed logins) are not refused.
 * The limiter still runs on every request. A test of the limits passes its own in `config`.
 */
/**
 * The services of another process (the command line, a second server) over the database at `address`,
 * hashing at the tests' cost. The caller closes their store.
 */
export async function servicesOver(address: string): Promise<Services> {
  return createServices(await openStore(address), MENU_FORMS, undefined, TEST_SCRYPT);
}

export const GENEROUS_LIMITS: Partial<ServerConfig> = {
  rateLimitCredential: { ratePerSecond: 1_000_000, burst: 1_000_000 },
  rateLimitAddress: { ratePerSecond: 1_000_000, burst: 1_000_000 },
  rateLimitAdminKey: { ratePerSecond: 1_000_000, burst: 1_000_000 },
  loginGuard: { ...DEFAULTS.loginGuard, perPair: 1_000_000, perAddress: 1_000_000, perUsername: 1_000_000 },
};

export function temporaryDirectory(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'menu-api-test-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface TestRuntime extends Runtime {
  /** The database address: a SQLite file path, or a postgres:// URL (a database of this test file, emptied for this runtime). */
  database: string;
  databaseKind: DatabaseKind;
  /** A dispensary, credential and menu ready to use. */
  seed: Seed;
}

export interface Seed {
  dispensaryId: number;
  token: string;
  username: string;
  password: string;
}

/**
 * A fresh runtime over a new database (a SQLite file, or a PostgreSQL database when the project is
 * "postgres": see testDatabase()), with one dispensary, one credential and the given menu.
 * `close()` also removes the database.
 */
export async function testRuntime(
  options: { menu?: unknown[]; config?: Partial<ServerConfig>; scryptCost?: ScryptCost } = {},
): Promise<TestRuntime> {
  const fresh = await testDatabase();
  const database = fresh.address;
  let runtime: Runtime;
  try {
    runtime = await createRuntime(
      { ...DEFAULTS, database, databasePoolSize: 4, ...GENEROUS_LIMITS, ...options.config },
      { logger: false, scryptCost: options.scryptCost ?? TEST_SCRYPT, contractCheck },
    );
  } catch (error) {
    await fresh.cleanup();
    throw error;
  }
  return {
    ...runtime,
    database,
    databaseKind: fresh.kind,
    seed: await seedRuntime(runtime, { dispensary: 'Test Collective', username: 'integrator' }, options.menu),
    async close() {
      await runtime.close();
      await fresh.cleanup();
    },
  };
}

/** Creates the one dispensary and credential a test runtime starts with, and gives the dispensary `menu`. */
export async function seedRuntime(
  runtime: Pick<Runtime, 'services'>,
  names: { dispensary: string; username: string },
  menu?: unknown[],
): Promise<Seed> {
  const { dispensaries, credentials, menus } = runtime.services;
  const dispensary = await dispensaries.create(names.dispensary);
  const credential = await credentials.issue(names.username);
  if (menu) await menus.replace(dispensary.id, menus.validate(menu));
  return {
    dispensaryId: dispensary.id,
    token: dispensary.token,
    username: credential.username,
    password: credential.password,
  };
}

/** A small menu covering what the shape rules care about: inactive items, Form-B-only types, nulls. */
export const SAMPLE_MENU = [
  BLUE_DREAM,
  {
    id: 1,
    name: 'Fudge Brownie',
    brand: 'Baked Bros',
    product_type: 'Edible',
    product_subtype: 'Brownies',
    total_thc: 100,
    prices: [{ unit: 'unit', amount: 1, price: 22.99 }],
  },
  { id: 2, name: 'Hidden Kush', product_type: 'Flower', active: false, prices: [] },
  {
    id: 7,
    name: 'Vape Cart',
    product_type: 'Vape',
    prices: [{ unit: 'gram', amount: 0.5, price: 35, stock: 4 }],
  },
];

/** SAMPLE_MENU's Blue Dream as Form A answers it: written out here so that no test reads it from the code it checks. */
export const BLUE_DREAM_FORM_A = {
  id: 3,
  name: 'Blue Dream',
  brand_name: 'Emerald Farms',
  product_type: 'Flower',
  product_subtype: 'Hybrid',
  description: 'Berry aroma.',
  product_prices: [
    { unit: 'gram', amount: 1, price: 12 },
    { unit: 'ounce', amount: 0.125, price: 38.5 },
  ],
  active: true,
};
