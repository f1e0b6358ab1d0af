import { createTransport } from 'nodemailer';
import type { Mailer } from '../services/accounts.js';

/** Who the console's emails come from, unless the SMTP address's query says `from=`. */
const DEFAULT_FROM = 'Dispensary Menu API <no-reply@localhost>';

/**
 * Sends the accounts' emails (invitations, password links) through the SMTP server of `--smtp-url`,
 * with nodemailer: one connection per message, so a server that restarts costs nothing. The URL may
 * carry `?from=ADDRESS`. A message that cannot be delivered fails the request that sent it, so the
 * person is never told "emailed" when it was not.
 */
export function smtpMailer(url: string): Mailer {
  const parsed = new URL(url);
  const from = parsed.searchParams.get('from') ?? DEFAULT_FROM;
  parsed.searchParams.delete('from');
  const transport = createTransport(parsed.toString());
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
  };
}
