import * as crypto from 'node:crypto';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 of a string, as hex or base64. `crypto.hash` (Node 20.12 and later) is a one-shot call several
 * times cheaper than a Hash object for short inputs; these run on every request (bench/PROFILE.md).
 */
export const sha256: (text: string, encoding: 'hex' | 'base64') => string =
  typeof crypto.hash === 'function'
    ? (text, encoding) => crypto.hash('sha256', text, encoding)
    : (text, encoding) => createHash('sha256').update(text, 'utf8').digest(encoding);

/** 24 random bytes: 192 bits, url-safe base64 (32 characters). */
export function generateSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** Dispensary tokens and admin keys are stored only as this digest; it is what lookups compare. */
export function secretDigest(secret: string): string {
  return sha256(secret, 'hex');
}

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
