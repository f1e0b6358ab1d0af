import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 of a string, as hex or base64. `crypto.hash` (every Node the engines field allows has it) is a
 * one-shot call several times cheaper than a Hash object for short inputs; these run on every request
 * (bench/PROFILE.md).
 */
export function sha256(text: string, encoding: 'hex' | 'base64'): string {
  return hash('sha256', text, encoding);
}

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
