import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Webhook signing secrets. Unlike tokens and passwords they cannot be stored as a digest: every
 * delivery is signed with the secret itself. So they are stored encrypted (AES-256-GCM) with a key
 * kept outside the database: a copy of the database alone does not give them away.
 */

/** `whsec_` and 32 random bytes in base64: the Standard Webhooks spelling of a signing secret. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The encryption key from its text: 32 bytes, base64 or hex; undefined when it is not one. */
export function parseWebhookKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)
      ? Buffer.from(trimmed, 'base64')
      : undefined;
  return bytes?.length === 32 ? bytes : undefined;
}

export function generateWebhookKey(): Buffer {
  return randomBytes(32);
}

const VERSION = 'v1';
/** Bound into every ciphertext, so that one made for another purpose with the same key does not decrypt. */
const PURPOSE = Buffer.from('menu-api webhook secret');

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function encryptWebhookSecret(key: Buffer, secret: string): string {
  return sealSecret(key, secret, PURPOSE);
}

/**
 * Any secret that must be read back (a webhook's signing secret, an account's TOTP secret), encrypted
 * with the same key; `purpose` is bound in, so one kind never decrypts as another.
 */
export function sealSecret(key: Buffer, secret: string, purpose: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(purpose);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The secret; throws when the key is not the one it was encrypted with. */
export function decryptWebhookSecret(key: Buffer, stored: string): string {
  return openSecret(key, stored, PURPOSE);
}

/** A secret sealed by sealSecret for `purpose`; throws for another key or purpose. */
export function openSecret(key: Buffer, stored: string, purpose: Buffer): string {
  const [version, iv, tag, ciphertext] = stored.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) {
    throw new Error('not an encrypted secret');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(purpose);
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}
