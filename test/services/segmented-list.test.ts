import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32Combine } from '../../src/services/snapshots/crc32.js';
import { type ListedItem, SegmentedList, segmentEnds } from '../../src/services/snapshots/segmented.js';

const text = (id: number, version: number) =>
  JSON.stringify({ id, name: `item ${id} v${version}`, note: 'é ✓ "quoted"'.repeat(1 + (id % 5)) });
const expected = (items: Map<number, string>) =>
  `[${[...items.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, value]) => value)
    .join(',')}]`;
const listed = (items: Map<number, string>): ListedItem[] =>
  [...items.entries()].sort(([a], [b]) => a - b).map(([id, value]) => ({ id, text: value }));

describe('crc32Combine', () => {
  it('gives the CRC-32 of a concatenation from the CRCs of its parts', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ maxLength: 3000 }), (a, b) => {
        const whole = crc32(Buffer.concat([a, b]));
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(whole);
      }),
    );
  });
});

const change = fc.record({
  id: fc.integer({ min: 1, max: 720 }),
  remove: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
  // Named with the text it has (a special's boundary names items whose answer did not change).
  same: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
});

describe('SegmentedList', () => {
  it('cuts the same ids into the same segments however they were reached', () => {
    const ids = Array.from({ length: 5000 }, (_, index) => index * 3 + 1);
    const ends = segmentEnds(ids);
    expect(ends.at(-1)).toBe(ids.length);
    expect(ends.length).toBeGreaterThan(5000 / 256);
    expect(segmentEnds([])).toEqual([0]);
  });

  it('after random changes, every coding decodes to a from-scratch build, with its tag', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Dense ids and few changes per round (the common case: a change to an item in place),
        // sometimes many (insertions and removals that move the cuts).
        fc.integer({ min: 0, max: 700 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 700 }), { size: 'medium' }),
        fc.array(
          fc.oneof(
            fc.array(change, { minLength: 1, maxLength: 3 }),
            fc.array(change, { maxLength: 80, size: 'medium' }),
          ),
          { minLength: 1, maxLength: 6 },
        ),
        async (count, holes, rounds) => {
          const missing = new Set(holes);
          const items = new Map<number, string>();
          for (let id = 1; id <= count; id++) if (!missing.has(id)) items.set(id, text(id, 0));
          let list = await SegmentedList.build(listed(items), 6);
          let version = 1;
          for (const round of rounds) {
            const changes = new Map<number, string | undefined>();
            for (const { id, remove, same } of round) {
              const value = remove ? undefined : same && items.has(id) ? items.get(id) : text(id, version++);
              changes.set(id, value);
              if (value === undefined) items.delete(id);
              else items.set(id, value);
            }
            // Sometimes without its identity bytes: the patch inflates them again.
            if (version % 3 === 0) list.dropIdentity();
            list = await list.patch(changes, 6);
            const scratch = await SegmentedList.build(listed(items), 6);
            const want = expected(items);
            expect(gunzipSync(list.gzip).toString()).toBe(want);
            expect((await list.identity()).toString()).toBe(want);
            expect(list.tag).toBe(scratch.tag);
            // Cut the same way, compressed the same way: the very same bytes.
            expect(list.gzip.equals(scratch.gzip)).toBe(true);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('gives a different tag exactly when the content differs', async () => {
    const a = await SegmentedList.build([{ id: 1, text: '{"a":1}' }], 6);
    const b = await SegmentedList.build([{ id: 1, text: '{"a":2}' }], 6);
    const back = await b.patch(new Map([[1, '{"a":1}']]), 6);
    expect(a.tag).not.toBe(b.tag);
    expect(back.tag).toBe(a.tag);
  });

  it('is read whole by gzip -dc and by Python', async () => {
    const items = new Map(Array.from({ length: 900 }, (_, index) => [index + 1, text(index + 1, 0)]));
    let list = await SegmentedList.build(listed(items), 6);
    list = await list.patch(
      new Map([
        [7, text(7, 9)],
        [500, undefined],
        [5000, text(5000, 1)],
      ]),
      6,
    );
    items.set(7, text(7, 9));
    items.delete(500);
    items.set(5000, text(5000, 1));
    expect(list.segmentCount).toBeGreaterThan(3);
    const directory = mkdtempSync(join(tmpdir(), 'segmented-'));
    try {
      const file = join(directory, 'menu.json.gz');
      writeFileSync(file, list.gzip);
      expect(execFileSync('gzip', ['-dc', file], { encoding: 'utf8' })).toBe(expected(items));
      const python = execFileSync(
        'python3',
        ['-c', 'import gzip,sys; sys.stdout.write(gzip.open(sys.argv[1]).read().decode())', file],
        { encoding: 'utf8' },
      );
      expect(python).toBe(expected(items));
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('is the same list when every item named has the text it had', async () => {
    const items = new Map(Array.from({ length: 300 }, (_, index) => [index + 1, text(index + 1, 0)]));
    const list = await SegmentedList.build(listed(items), 6);
    const same = new Map([...items].filter(([id]) => id % 5 === 0));
    expect(await list.patch(same, 6)).toBe(list);
    list.dropIdentity();
    expect(await list.patch(same, 6)).toBe(list);
  });

  it('lists nothing as []', async () => {
    const list = await SegmentedList.build([], 6);
    expect(gunzipSync(list.gzip).toString()).toBe('[]');
    const emptied = await (await SegmentedList.build([{ id: 3, text: '{}' }], 6)).patch(
      new Map([[3, undefined]]),
      6,
    );
    expect(gunzipSync(emptied.gzip).toString()).toBe('[]');
    expect(emptied.tag).toBe(list.tag);
  });
});
