import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';

/** The content codings a snapshot is kept in. */
export type Encoding = 'br' | 'gzip' | 'identity';

/** When two codings are equally acceptable: the smallest bytes first. */
const PREFERENCE: readonly Encoding[] = ['br', 'gzip', 'identity'];

/** Accept-Encoding values repeat (each client sends the same one every time): parse each once. */
const parsed = new Map<string, Encoding>();
const PARSED_LIMIT = 256;

/**
 * Chooses the coding of a response from `Accept-Encoding` (RFC 9110, section 12.5.3): q-values,
 * `*` for every coding not named, `q=0` to refuse one, `x-gzip` as gzip. Identity, when not named,
 * ranks with the least preferred coding named (as the `negotiator` package does), so `gzip;q=0.5`
 * still selects gzip. No header, an empty one, or nothing acceptable: identity (the server sends an
 * uncompressed answer rather than 406, as RFC 9110 recommends).
 */
export function negotiateEncoding(header: string | string[] | undefined): Encoding {
  if (header === undefined) return 'identity';
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === '') return 'identity';
  const known = parsed.get(value);
  if (known) return known;
  const chosen = choose(value);
  if (parsed.size >= PARSED_LIMIT) parsed.clear();
  parsed.set(value, chosen);
  return chosen;
}

/** Accept-Encoding parsed without one coding (the one not ready yet): what else the client takes best. */
const parsedWithout = new Map<string, Encoding>();

/** The coding `negotiateEncoding` would choose if `missing` did not exist (brotli still being built). */
export function negotiateWithout(missing: Encoding, header: string | string[] | undefined): Encoding {
  if (header === undefined) return 'identity';
  const value = Array.isArray(header) ? header.join(',') : header;
  const key = `${missing}|${value}`;
  const known = parsedWithout.get(key);
  if (known) return known;
  const chosen = choose(value, missing);
  if (parsedWithout.size >= PARSED_LIMIT) parsedWithout.clear();
  parsedWithout.set(key, chosen);
  return chosen;
}

function choose(value: string, missing?: Encoding): Encoding {
  const q = new Map<string, number>();
  let lowest = 1;
  for (const part of value.split(',')) {
    const [rawName, ...params] = part.split(';');
    let name = rawName!.trim().toLowerCase();
    if (name === '') continue;
    if (name === 'x-gzip') name = 'gzip';
    let quality = 1;
    for (const param of params) {
      const [key, raw] = param.split('=');
      if (key?.trim().toLowerCase() !== 'q') continue;
      const number = Number(raw?.trim());
      // A malformed q-value names the coding without saying how much it is wanted: ignore it.
      quality = /^\s*(0(\.\d{0,3})?|1(\.0{0,3})?)\s*$/.test(raw ?? '') ? number : Number.NaN;
    }
    if (Number.isNaN(quality)) continue;
    // The most specific (and, for a repeated name, the first) entry decides.
    if (!q.has(name)) q.set(name, quality);
    if (name !== '*') lowest = Math.min(lowest, quality);
  }
  const star = q.get('*');
  const qualityOf = (encoding: Encoding): number => {
    const named = q.get(encoding);
    if (named !== undefined) return named;
    if (star !== undefined) return star;
    return encoding === 'identity' ? lowest : 0;
  };
  let best: Encoding = 'identity';
  let bestQ = 0;
  for (const encoding of PREFERENCE) {
    if (encoding === missing) continue;
    const quality = qualityOf(encoding);
    if (quality > bestQ) {
      best = encoding;
      bestQ = quality;
    }
  }
  return best;
}

export interface CompressionOptions {
  gzipLevel: number;
  brotliQuality: number;
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Brotli in text mode with the size hint; the quality is chosen by measurement (see bench/PROFILE.md). */
const brotliOptions = (size: number, options: CompressionOptions) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: options.brotliQuality,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: size,
    // A window no larger than the body: the same bytes out, a fraction of the memory (the default
    // 4 MiB window, allocated per call on a pool thread, kept each thread's heap tens of MiB large).
    [constants.BROTLI_PARAM_LGWIN]: brotliWindowBits(size),
  },
});

/** Compresses off the main thread (the libuv pool), so that other requests are answered meanwhile. */
export function compress(
  body: Buffer,
  encoding: 'br' | 'gzip',
  options: CompressionOptions,
): Promise<Buffer> {
  if (encoding === 'gzip') return gzipAsync(body, { level: options.gzipLevel });
  return brotliAsync(body, brotliOptions(body.length, options));
}

/**
 * compress on the calling thread, the same bytes: for a body small enough that the event loop waits
 * less for it than the hand-off to the pool costs in CPU (its stream, callbacks and thread switches:
 * about 150 µs a Form v1 search, a quarter of its work; bench/PROFILE.md, round nineteen).
 */
export function compressNow(body: Buffer, encoding: 'br' | 'gzip', options: CompressionOptions): Buffer {
  if (encoding === 'gzip') return gzipSync(body, { level: options.gzipLevel });
  return brotliCompressSync(body, brotliOptions(body.length, options));
}

/** log2 of the smallest window that holds `size` bytes, within brotli's limits (10 to 24; default 22). */
export function brotliWindowBits(size: number): number {
  return Math.min(
    constants.BROTLI_MAX_WINDOW_BITS,
    Math.max(constants.BROTLI_MIN_WINDOW_BITS, Math.ceil(Math.log2(size + 16))),
  );
}
