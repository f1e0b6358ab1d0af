import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Small values a server hands a browser to keep for it and give back (the sign-in flow of single
 * sign-on), sealed with AES-256-GCM: the browser can neither read nor change them, and any process that
 * knows the same secret opens them. The key is derived from `secret` for `purpose` only (HKDF-SHA-256),
 * so it is no other use's key. Sealed values carry their end, after which they do not open.
 */
export class Sealer {
  private readonly key: Buffer;

  constructor(secret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, '', `menu-api ${purpose}`, 32));
  }

  seal(value: unknown, lifetimeMs: number): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const text = JSON.stringify({ value, until: Date.now() + lifetimeMs });
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The value sealed, or undefined when it was changed, sealed with another key, or is past its end. */
  open(sealed: string): unknown {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < 29) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
      const { value, until } = JSON.parse(text) as { value: unknown; until: number };
      return Date.now() < until ? value : undefined;
    } catch {
      // A changed or foreign value fails authentication: it is simply not ours.
      return undefined;
    }
  }
}
