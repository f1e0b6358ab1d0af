/**
 * `npx tsx bench/credential-check.ts`: what the credential check costs, in process: a repeat request
 * (answered from memory), a new password for a known username, an unknown username, and the token
 * lookup of every request (one SHA-256 and a map).
 */
import { CredentialVerifier } from '../src/auth/credential-verifier.js';
import { DEFAULT_SCRYPT_COST, hashPassword } from '../src/auth/password.js';
import { secretDigest } from '../src/auth/secrets.js';
import type { Credential } from '../src/store/store.js';

const password = 'x'.repeat(32);
const credential: Credential = {
  id: 1,
  username: 'integrator',
  passwordHash: await hashPassword(password, DEFAULT_SCRYPT_COST),
  createdAt: new Date().toISOString(),
  revokedAt: null,
  expiresAt: null,
  lastUsedAt: null,
  dispensaryIds: null,
};
let queries = 0;
const credentials = {
  find: async (username: string) => {
    queries++;
    return username === credential.username ? credential : undefined;
  },
};
const verifier = new CredentialVerifier(credentials, { rememberMs: 60_000 });

async function per(label: string, times: number, work: () => Promise<unknown> | unknown): Promise<void> {
  const before = queries;
  const started = performance.now();
  for (let index = 0; index < times; index++) await work();
  const each = (performance.now() - started) / times;
  const text = each < 1 ? `${(each * 1000).toFixed(2)} µs` : `${each.toFixed(1)} ms`;
  console.log(`${label.padEnd(48)} ${text} per check, ${(queries - before) / times} queries per check`);
}

await verifier.verify('integrator', password);
await per('repeat request (remembered pair)', 200_000, () => verifier.verify('integrator', password));
await per('wrong password, known username (full scrypt)', 5, () => verifier.verify('integrator', 'wrong'));
await per('unknown username (full scrypt on a decoy)', 5, () => verifier.verify('nobody', 'wrong'));
const tokens = new Map([[secretDigest('t'.repeat(32)), 1]]);
await per('token lookup (SHA-256 digest and a map)', 200_000, () => tokens.get(secretDigest('t'.repeat(32))));
