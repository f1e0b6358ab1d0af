/**
 * `npx tsx bench/rebuild-parts.ts`: where a rebuild of the 5,000-item Form B snapshot spends its time,
 * step by step, in process (medians of 5): the store read, the mapping, serialization, the ETag hash,
 * and each coding.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formBMenuSchema, toFormBItem } from '../src/forms/form-b/item.js';
import { compress } from '../src/services/snapshots/encoding.js';
import { compileSerializer } from '../src/services/snapshots/serializer.js';
import { openStore } from '../src/store/open.js';
import { generateDatabase } from './lib/data.js';

const work = mkdtempSync(join(tmpdir(), 'menu-api-rebuild-'));
try {
  const database = join(work, 'menu.db');
  const db = await generateDatabase(database, { sizes: [5000], scale: 0 });
  const store = await openStore(database);
  const serialize = compileSerializer(formBMenuSchema('both'));
  const steps: Record<string, number[]> = {};
  const time = async <T>(name: string, work: () => T | Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await work();
    const times = steps[name] ?? [];
    times.push(performance.now() - started);
    steps[name] = times;
    return result;
  };
  for (let round = 0; round < 6; round++) {
    const items = await time('store.readMenu', () => store.menus.read(db.sized[0]!.id));
    const wire = await time('map to Form B', () =>
      items.filter((item) => item.active).map((item) => toFormBItem(item, 'both')),
    );
    const body = await time('serialize (fjs per item)', () => serialize(wire));
    await time('sha256 ETag', () => createHash('sha256').update(body).digest('base64url'));
    await time('gzip 6', () => compress(body, 'gzip', { gzipLevel: 6, brotliQuality: 4 }));
    for (const quality of [4, 5]) {
      await time(`brotli ${quality}`, () => compress(body, 'br', { gzipLevel: 6, brotliQuality: quality }));
    }
  }
  await store.close();
  for (const [name, times] of Object.entries(steps)) {
    const sorted = times.slice(1).sort((a, b) => a - b);
    console.log(
      `${name.padEnd(26)} median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, min ${sorted[0]!.toFixed(1)} ms`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
