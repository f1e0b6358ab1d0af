import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 24 random bytes: 192 bits, url-safe base64 (32 characters). */
export function generateSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** Dispensary tokens and admin keys are stored only as this digest; it is what lookups compare. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
