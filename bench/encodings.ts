/**
 * `npx tsx bench/encodings.ts`: the measurements behind the snapshot choices, on one core: how to
 * serialize (fast-json-stringify for the whole array, per item in pieces, JSON.stringify), and which
 * brotli quality keeps a 5,000-item rebuild of every coding well under 150 ms. Medians of 7 runs.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import fastJson from 'fast-json-stringify';
import type { MenuItem } from '../src/domain/item.js';
import { validateMenu } from '../src/domain/validate-item.js';
import { formBMenuSchema, toFormBItem } from '../src/forms/form-b/item.js';
import { ALL_ITEM_FIELD_ALIASES } from '../src/forms/index.js';
import { compileSerializer } from '../src/services/snapshots/serializer.js';
import { realisticMenu } from './lib/data.js';

const RUNS = 7;
function median(work: () => unknown): number {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

const schema = formBMenuSchema('both');
const whole = fastJson(schema as fastJson.AnySchema) as (value: unknown) => string;
const pieces = compileSerializer(schema);
const lines: string[] = [];
for (const size of [500, 5000]) {
  const result = validateMenu(realisticMenu(size, size), ALL_ITEM_FIELD_ALIASES, 20_000);
  if (!result.ok) throw new Error('the generated menu does not validate');
  const items = result.items.map((item, index) => ({ ...item, id: index + 1 })) as MenuItem[];
  const wire = items.filter((item) => item.active).map((item) => toFormBItem(item, 'both'));
  const body = pieces(wire);
  if (!body.equals(Buffer.from(whole(wire))) || !body.equals(Buffer.from(JSON.stringify(wire)))) {
    throw new Error('serializers disagree');
  }
  const brotli = (quality: number) => () =>
    brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: quality,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
  lines.push(`${size} items, Form B (both spellings): ${body.length} bytes of JSON`);
  lines.push(
    `  map to wire objects      ${median(() => items.filter((item) => item.active).map((item) => toFormBItem(item, 'both'))).toFixed(1)} ms`,
  );
  lines.push(`  fjs, whole array + bytes ${median(() => Buffer.from(whole(wire))).toFixed(1)} ms`);
  lines.push(`  fjs per item, pieces     ${median(() => pieces(wire)).toFixed(1)} ms`);
  lines.push(`  JSON.stringify + bytes   ${median(() => Buffer.from(JSON.stringify(wire))).toFixed(1)} ms`);
  lines.push(
    `  gzip level 6             ${median(() => gzipSync(body, { level: 6 })).toFixed(1)} ms, ${gzipSync(body, { level: 6 }).length} bytes`,
  );
  for (const quality of [3, 4, 5, 6]) {
    lines.push(
      `  brotli quality ${quality}         ${median(brotli(quality)).toFixed(1)} ms, ${brotli(quality)().length} bytes`,
    );
  }
}
console.log(lines.join('\n'));
