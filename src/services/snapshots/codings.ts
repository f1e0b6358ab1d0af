import { hash } from 'node:crypto';
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

/** The entity tag of `content`: its SHA-256, 32 characters of base64url (192 bits). */
export function tagOf(content: Buffer | string): string {
  // The one-shot hash: a Hash object per answer cost more than hashing a small one.
  return hash('sha256', content, 'base64url').slice(0, 32);
}

/** Uncompressed bytes as an answer: the entity tag is their hash. */
export function identityOf(body: Buffer, cursor: number | undefined): Representation {
  return taggedIdentity(body, tagOf(body), cursor);
}

/**
 * Uncompressed bytes as an answer whose entity tag was made otherwise: `tag` must be what no other
 * bytes of the same resource get (a hash of something that decides every byte of them).
 */
export function taggedIdentity(body: Buffer, tag: string, cursor: number | undefined): Representation {
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
