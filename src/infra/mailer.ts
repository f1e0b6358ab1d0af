import { createTransport } from 'nodemailer';
import type { Mailer } from '../services/accounts.js';

/** Who the console's emails come from, unless the SMTP address's query says `from=`. */
const DEFAULT_FROM = 'Dispensary Menu API <no-reply@localhost>';

/** An SMTP server that does not answer holds the request that sends for this long at most (ms). */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/**
 * Sends the accounts' emails (invitations, password links) through the SMTP server of `--smtp-url`,
 * with nodemailer: one connection per message, so a server that restarts costs nothing. The URL may
 * carry `?from=ADDRESS`. A message the server does not take rejects, with its reason: the account
 * service then hands the link over to be sent by hand (src/services/accounts.ts `deliver`).
 */
export function smtpMailer(url: string): Mailer {
  const parsed = new URL(url);
  const from = parsed.searchParams.get('from') ?? DEFAULT_FROM;
  parsed.searchParams.delete('from');
  const transport = createTransport({ url: parsed.toString(), ...TIMEOUTS });
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
  };
}
