import { createHash } from 'node:crypto';
import { type CompressionOptions, compress, compressNow } from './encoding.js';
import type { Representation } from './types.js';

/**
 * Gzip level 6 and brotli quality 5, by measurement on the benchmark's menus (bench/PROFILE.md):
 * quality 5 takes about as long as gzip 6 and is 10 % smaller; quality 4 is faster but larger than
 * gzip 6 on menu JSON, so a client that accepts both would download more. Each coding is built once
 * per change, and only when a client asks for it.
 */
export const DEFAULT_COMPRESSION: CompressionOptions = { gzipLevel: 6, brotliQuality: 5 };

/** Bodies smaller than this are sent uncompressed, in every coding. */
export const DEFAULT_COMPRESS_MIN_BYTES = 1024;

/** Uncompressed bytes as an answer: the entity tag is their hash. */
export function identityOf(body: Buffer, cursor: number | undefined): Representation {
  const tag = createHash('sha256').update(body).digest('base64url').slice(0, 32);
  return { body, encoding: 'identity', etag: `"${tag}"`, tag, cursor };
}

/** The answer in a coding, `body` its bytes: the same tag (If-None-Match compares it), the coding in the entity tag. */
function codedAs(identity: Representation, encoding: 'br' | 'gzip', body: Buffer): Representation {
  return {
    body,
    encoding,
    etag: `"${identity.tag}-${encoding}"`,
    tag: identity.tag,
    cursor: identity.cursor,
  };
}

/** The answer compressed off the main thread (compress). */
export async function encodedOf(
  identity: Representation,
  encoding: 'br' | 'gzip',
  options: CompressionOptions,
): Promise<Representation> {
  return codedAs(identity, encoding, await compress(identity.body, encoding, options));
}

/** The answer compressed on the calling thread (compressNow): for small bodies. */
export function encodedNow(
  identity: Representation,
  encoding: 'br' | 'gzip',
  options: CompressionOptions,
): Representation {
  return codedAs(identity, encoding, compressNow(identity.body, encoding, options));
}
