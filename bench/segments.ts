/**
 * `npx tsx bench/segments.ts`: what segmenting a snapshot costs and saves (issue 13), in process,
 * medians of 7: the gzip size of the segmented answer against one gzip stream, a build from scratch,
 * and a patch of one item (re-serialize it, recompress its segment, assemble the body).
 */
import { gzipSync } from 'node:zlib';
import fastJson from 'fast-json-stringify';
import type { MenuItem } from '../src/domain/item.js';
import { validateMenu } from '../src/domain/validate-item.js';
import { FormAItem, toFormAItem } from '../src/forms/form-a/item.js';
import { formBMenuSchema, toFormBItem } from '../src/forms/form-b/item.js';
import { ALL_ITEM_FIELD_ALIASES } from '../src/forms/index.js';
import { SegmentedList } from '../src/services/snapshots/segmented.js';
import { realisticMenu } from './lib/data.js';

const RUNS = 7;
async function median(work: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

const formB = fastJson((formBMenuSchema('both') as { items: fastJson.AnySchema }).items) as (
  v: unknown,
) => string;
const formA = fastJson(FormAItem as fastJson.AnySchema) as (v: unknown) => string;
const lines: string[] = [];
for (const size of [50, 500, 5000]) {
  const result = validateMenu(realisticMenu(size, size), ALL_ITEM_FIELD_ALIASES, 20_000);
  if (!result.ok) throw new Error('the generated menu does not validate');
  const items = result.items.map((item, index) => ({ ...item, id: index + 1 })) as MenuItem[];
  for (const [name, text] of [
    ['Form B', (item: MenuItem) => (item.active ? formB(toFormBItem(item, 'both')) : undefined)],
    ['Form A', (item: MenuItem) => (item.active ? formA(toFormAItem(item)) : undefined)],
  ] as const) {
    const listed = items.flatMap((item) => {
      const value = text(item);
      return value === undefined ? [] : [{ id: item.id, text: value }];
    });
    const body = Buffer.from(`[${listed.map((item) => item.text).join(',')}]`);
    const list = await SegmentedList.build(listed, 6);
    const whole = gzipSync(body, { level: 6 }).length;
    const target = listed[Math.floor(listed.length / 2)]!;
    let version = 0;
    const patch = () =>
      list.patch(new Map([[target.id, target.text.replace('"stock":', `"stock":${++version}0`)]]), 6);
    lines.push(
      `${size} items, ${name}: ${body.length} B of JSON; gzip one stream ${whole} B, segmented ${list.gzip.length} B ` +
        `(${((list.gzip.length / whole - 1) * 100).toFixed(1)} %, ${list.segmentCount} segments); ` +
        `build ${(await median(() => SegmentedList.build(listed, 6))).toFixed(1)} ms, ` +
        `one-item patch ${(await median(patch)).toFixed(2)} ms, ` +
        `whole gzip ${(await median(() => gzipSync(body, { level: 6 }))).toFixed(1)} ms`,
    );
  }
}
console.log(lines.join('\n'));
