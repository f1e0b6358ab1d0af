/**
 * The write measurements of bench/writes.ts and bench/run.ts. Writes that should cost what they
 * change (issue 13, §2), through the services (what the sync API and the CLI call), on SQLite and
 * PostgreSQL: a stock batch of 6,680 entries on the 5,000-item menu,
 * and a full sync of the same 5,000 items (nothing changed). Medians of 11 after one warm-up.
 *
 * PostgreSQL: a scratch database on BENCH_POSTGRES_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres), dropped afterwards; skipped when unreachable.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MENU_FORMS } from '../../src/forms/index.js';
import { tuneHeapForServing } from '../../src/infra/heap-tuning.js';
import { createServices } from '../../src/services/index.js';
import { openStore } from '../../src/store/open.js';
import { realisticMenu } from './data.js';
import { timed } from './processes.js';

export interface WriteTimes {
  database: 'SQLite' | 'PostgreSQL';
  entries: number;
  /** A stock batch of `entries` entries, each moving its level, ms per round. */
  stockMs: number[];
  /** A full sync of the 5,000 stored items, unchanged: validation and the write, ms per round. */
  syncMs: number[];
  /**
   * The same, as CPU time of this process (user + system): on a loaded machine steadier than the
   * wall clock. For SQLite (in process) it is nearly the whole cost; PostgreSQL's own work is not in it.
   */
  stockCpuMs: number[];
  syncCpuMs: number[];
}

export const ITEMS = 5000;
const BATCH = 6680;
const ROUNDS = 11;

export async function measureWrites(address: string, database: WriteTimes['database']): Promise<WriteTimes> {
  // The sync API runs in `serve`, whose V8 makes no pretenuring decisions: these writes neither.
  tuneHeapForServing();
  const store = await openStore(address);
  try {
    const services = createServices(store, MENU_FORMS);
    const { id } = await services.dispensaries.create('Bench writes');
    const raw = realisticMenu(ITEMS, ITEMS);
    await services.menus.replace(id, services.menus.validate(raw));
    const entries = (await store.menus.read(id))
      .flatMap((item) =>
        item.prices.map((price) => ({ item_id: item.id, unit: price.unit, amount: price.amount })),
      )
      .slice(0, BATCH);
    const stockMs: number[] = [];
    const syncMs: number[] = [];
    const stockCpuMs: number[] = [];
    const syncCpuMs: number[] = [];
    // Each batch moves every level it names (rounds apart): the feed records each item it changed.
    for (let round = 0; round <= ROUNDS; round++) {
      const batch = entries.map((entry, index) => ({ ...entry, stock: 100 * round + (index % 97) }));
      const [wall, cpu] = await timed(() => services.menus.setStock(id, batch));
      if (round > 0) {
        stockMs.push(wall);
        stockCpuMs.push(cpu);
      }
    }
    // The first sync puts the generated stock back (a change); the timed ones change nothing.
    for (let round = 0; round <= ROUNDS; round++) {
      const [wall, cpu] = await timed(() => services.menus.replace(id, services.menus.validate(raw)));
      if (round > 0) {
        syncMs.push(wall);
        syncCpuMs.push(cpu);
      }
    }
    return { database, entries: entries.length, stockMs, syncMs, stockCpuMs, syncCpuMs };
  } finally {
    await store.close();
  }
}

/** Both databases, each in a scratch database of its own. */
export async function measureBothWrites(): Promise<WriteTimes[]> {
  const results: WriteTimes[] = [];
  const folder = mkdtempSync(join(tmpdir(), 'menu-api-writes-'));
  try {
    results.push(await measureWrites(join(folder, 'menu.db'), 'SQLite'));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const server = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `menu_api_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  try {
    await admin.connect();
  } catch (error) {
    console.log(`PostgreSQL unreachable (${(error as Error).message}): writes measured on SQLite only`);
    return results;
  }
  try {
    await admin.query(`create database ${name}`);
    const url = new URL(server);
    url.pathname = `/${name}`;
    results.push(await measureWrites(url.toString(), 'PostgreSQL'));
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
  return results;
}

export const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
