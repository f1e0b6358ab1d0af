import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message an SMTP server of a test accepted. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The whole message as it arrived (headers and body, transfer-encoded). */
  raw: string;
  /** The body with quoted-printable soft breaks and escapes undone, for reading a link in it. */
  text: string;
}

export interface SmtpReceiver {
  /** smtp://127.0.0.1:PORT, for --smtp-url. */
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** SMTP's "mailbox unavailable": the reply a receiver that refuses mail gives. */
const MAILBOX_UNAVAILABLE = 550;

/** Undoes quoted-printable (RFC 2045 6.7): nodemailer uses it for lines over 76 characters, as a link's. */
function quotedPrintable(text: string): string {
  return text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/**
 * A real SMTP server on loopback (the smtp-server package), plain text and no authentication, that
 * keeps every message it accepts; with `refuse`, it refuses every recipient with that message (550).
 */
export async function startSmtpReceiver(options: { refuse?: string } = {}): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (options.refuse === undefined) return callback();
      const refusal = Object.assign(new Error(options.refuse), { responseCode: MAILBOX_UNAVAILABLE });
      callback(refusal);
    },
    onData(stream, session, callback) {
      const parts: Buffer[] = [];
      stream.on('data', (part: Buffer) => parts.push(part));
      stream.on('end', () => {
        const raw = Buffer.concat(parts).toString('utf8');
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw,
          text: quotedPrintable(raw.slice(raw.indexOf('\r\n\r\n') + 4)),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
