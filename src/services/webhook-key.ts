import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generateWebhookKey, parseWebhookKey } from '../auth/webhook-secrets.js';
import { isPostgresAddress } from '../store/open.js';
import { ServiceError } from './errors.js';

/** Where the key encrypting webhook secrets comes from. */
export interface WebhookKeySource {
  /**
   * The key. `create`: may make one (SQLite's key file) when there is none yet, as adding a webhook
   * does; a delivery never creates one.
   */
  key(create: boolean): Buffer;
}

export const KEY_ADVICE = 'Generate one with: openssl rand -base64 32';

/**
 * The key, from the setting (WEBHOOK_KEY) when given. Without it: for a SQLite file, the file beside
 * it named `<database>.webhook-key` (mode 0600), created the first time a webhook is added, with a
 * notice; for PostgreSQL, nothing: several machines share that database, so the key must be set on
 * each of them, and adding a webhook without it fails with a message saying so.
 */
export function webhookKeySource(
  configured: string | undefined,
  database: string,
  notice: (message: string) => void,
): WebhookKeySource {
  if (configured !== undefined && configured !== '') {
    const key = parseWebhookKey(configured);
    return {
      key: () => {
        if (!key) {
          throw new ServiceError(
            'unavailable',
            `WEBHOOK_KEY (--webhook-key) must be 32 bytes in base64 or hex. ${KEY_ADVICE}`,
          );
        }
        return key;
      },
    };
  }
  if (isPostgresAddress(database)) {
    return {
      key: () => {
        throw new ServiceError(
          'unavailable',
          `Webhooks on PostgreSQL need WEBHOOK_KEY (or --webhook-key), the key that encrypts their signing secrets, set on every process. ${KEY_ADVICE}`,
        );
      },
    };
  }
  const path = database.startsWith('sqlite:') ? database.slice('sqlite:'.length) : database;
  if (path === ':memory:') {
    const key = generateWebhookKey();
    return { key: () => key };
  }
  const file = `${resolve(path)}.webhook-key`;
  let cached: Buffer | undefined;
  return {
    key: (create) => {
      if (cached) return cached;
      let text: string | undefined;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      if (text === undefined) {
        if (!create) {
          throw new ServiceError('unavailable', `The webhook key file ${file} is missing. ${KEY_ADVICE}`);
        }
        const fresh = generateWebhookKey().toString('base64');
        try {
          writeFileSync(file, `${fresh}\n`, { mode: 0o600, flag: 'wx' });
          notice(
            `Created ${file}: the key that encrypts webhook signing secrets. Back it up with the database; without it the secrets cannot be read.`,
          );
        } catch (error) {
          // Another process created it first: use theirs.
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        text = readFileSync(file, 'utf8');
      }
      const key = parseWebhookKey(text);
      if (!key)
        throw new ServiceError('unavailable', `${file} does not hold a 32-byte base64 key. ${KEY_ADVICE}`);
      cached = key;
      return key;
    },
  };
}
