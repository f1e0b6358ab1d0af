/**
 * `npx tsx bench/writes.ts`: the write measurements of `npm run bench` alone, SQLite and PostgreSQL (a
 * scratch database on BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres, dropped
 * afterwards; skipped when unreachable): a stock batch of 6,680 entries on the 5,000-item menu and a
 * full sync of the same 5,000 items (nothing changed), medians of 11 after one warm-up.
 */
import { ITEMS, measureBothWrites, median } from './lib/writes.js';

for (const result of await measureBothWrites()) {
  const show = (values: number[]) =>
    `${values.map((value) => value.toFixed(0)).join(', ')} ms (median ${median(values).toFixed(0)})`;
  console.log(
    `${result.database}: stock batch of ${result.entries}: ${show(result.stockMs)}; CPU ${show(result.stockCpuMs)}`,
  );
  console.log(
    `${result.database}: full sync of ${ITEMS} unchanged items: ${show(result.syncMs)}; CPU ${show(result.syncCpuMs)}`,
  );
}
