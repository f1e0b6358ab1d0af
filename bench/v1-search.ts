/**
 * `npx tsx bench/v1-search.ts [DB]`: in process, each step of a Form v1 `q` search on the 5,000-item
 * realistic menu (bench/lib/data.ts), with bench/v1.ts's searches, each a different one: the query
 * parsed, the result (search-index look-up, filter, rank), the page (with the order's print for its
 * cursor), the body written from the kept item JSON, with its entity tag (from the items' tags); then what each gzip level
 * and brotli quality costs on those bodies, and their bytes. Microseconds of CPU (this process's user
 * + system: a wall clock would count the other processes' turns on a shared machine) per search,
 * medians of 3 passes. DB: a database bench/lib/data.ts made (made in a scratch directory if left out).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { MenuPricing } from '../src/domain/special-pricing.js';
import { MenuIndex, page } from '../src/forms/form-v1/engine.js';
import { FIELD_NAMES } from '../src/forms/form-v1/item.js';
import { pageRest, taggedPage } from '../src/forms/form-v1/page-body.js';
import { parseMenuQuery } from '../src/forms/form-v1/query.js';
import { openStore } from '../src/store/open.js';
import { generateDatabase } from './lib/data.js';
import { SEARCHES } from './lib/v1-searches.js';

const PASSES = 3;

let database = process.argv[2];
let scratch: string | undefined;
let dispensaryId = 1;
if (!database) {
  scratch = mkdtempSync(join(tmpdir(), 'menu-api-v1-search-'));
  database = join(scratch, 'menu.db');
  dispensaryId = (await generateDatabase(database, { sizes: [5000], scale: 0 })).sized[0]!.id;
}
const store = await openStore(database);
const items = await store.menus.read(dispensaryId);
await store.close();
if (scratch) rmSync(scratch, { recursive: true, force: true });

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const micros = (ms: number, count: number) => ((ms / count) * 1000).toFixed(0).padStart(5);

// 1. The steps, over every search.
const pricing = new MenuPricing([], 'UTC', Date.now());
const STEPS = ['parse', 'result', 'page', 'body'] as const;
type Step = (typeof STEPS)[number];
const passes: Record<Step, number>[] = [];
const bodies: Buffer[] = [];
for (let pass = 0; pass <= PASSES; pass++) {
  // A fresh index per pass: its kept results would answer a search asked before.
  const index = MenuIndex.of(items, pricing);
  const spent: Record<Step, number> = { parse: 0, result: 0, page: 0, body: 0 };
  let at = 0;
  const lap = (step: Step) => {
    const now = cpuMs();
    spent[step] += now - at;
    at = now;
  };
  for (const q of SEARCHES) {
    at = cpuMs();
    const query = parseMenuQuery({ q }, FIELD_NAMES);
    lap('parse');
    index.result(query);
    lap('result');
    const found = page(index, query, 1);
    lap('page');
    // As src/forms/form-v1/menu.ts's identity writes it.
    const { body } = taggedPage(
      found.rows.map((row) => row.json),
      pageRest(found),
      1,
    );
    lap('body');
    if (pass === 0) bodies.push(body);
  }
  // The first pass warms the code up; it is not counted.
  if (pass > 0) passes.push(spent);
}
const plainBytes = bodies.reduce((sum, body) => sum + body.length, 0) / bodies.length;
console.log(
  `${items.length} items, ${SEARCHES.length} searches (bodies of ${Math.round(plainBytes).toLocaleString('en-US')} B on average); µs of CPU per search, median of ${PASSES} passes`,
);
for (const step of STEPS)
  console.log(`  ${step.padEnd(22)} ${micros(median(passes.map((spent) => spent[step])), SEARCHES.length)}`);

// 2. The codings, over every eighth search's body.
const sample = bodies.filter((_, index) => index % 8 === 0);
const coding = (name: string, compress: (body: Buffer) => Buffer) => {
  for (const body of sample.slice(0, 50)) compress(body);
  const times: number[] = [];
  let bytes = 0;
  for (let pass = 0; pass < PASSES; pass++) {
    const started = cpuMs();
    bytes = 0;
    for (const body of sample) bytes += compress(body).length;
    times.push(cpuMs() - started);
  }
  const size = Math.round(bytes / sample.length).toLocaleString('en-US');
  console.log(`  ${name.padEnd(22)} ${micros(median(times), sample.length)}, ${size} B`);
};
for (const level of [1, 2, 3, 4, 5, 6]) coding(`gzip level ${level}`, (body) => gzipSync(body, { level }));
for (const quality of [1, 2, 3, 4, 5]) {
  coding(`brotli quality ${quality}`, (body) =>
    brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: quality,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  );
}
