import { describe, expect, it } from 'vitest';
import { compress, compressNow } from '../../src/services/snapshots/encoding.js';

/**
 * Form v1 compresses small answers on the main thread (compressNow) and large ones on the pool
 * (compress): a client, and a cache holding the strong ETag, must get the same bytes either way.
 */
describe('compressNow', () => {
  // Menu-like JSON of several sizes: smaller than brotli's window floor, a search's page, a larger page.
  const item = (id: number) =>
    JSON.stringify({ id, name: `Blue Dream ${id}`, brand: 'Coastal', prices: [{ price: 10 + (id % 7) }] });
  const bodies = [3, 400, 1500].map((count) =>
    Buffer.from(`{"data":[${Array.from({ length: count }, (_, id) => item(id)).join(',')}]}`),
  );

  it('gives the bytes compress gives, in gzip and brotli, at the levels Form v1 uses', async () => {
    for (const body of bodies)
      for (const options of [
        { gzipLevel: 3, brotliQuality: 3 },
        { gzipLevel: 6, brotliQuality: 5 },
      ])
        for (const encoding of ['gzip', 'br'] as const)
          expect(compressNow(body, encoding, options).equals(await compress(body, encoding, options))).toBe(
            true,
          );
  });
});
