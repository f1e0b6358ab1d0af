import { smtpMailer } from '../../infra/mailer.js';
import { AccountService, CLI_OPERATOR, type IssuedLink } from '../../services/accounts.js';
import { ServiceError } from '../../services/errors.js';
import { accountRecord, issuedLinkRecord } from '../../services/records.js';
import type { Store } from '../../store/store.js';
import { listAction, parseId, withService } from '../context.js';
import type { CommonOptions } from '../options.js';
import { emit } from '../output.js';

/** The global settings account commands use: where links point, and the SMTP server that emails them. */
export interface AccountCliSettings {
  publicUrl?: string;
  smtpUrl?: string;
}

/** Where links point when no --public-url is given: the address `serve` listens at by default. */
export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:8080';

const service =
  (settings: AccountCliSettings = {}) =>
  (store: Store) =>
    new AccountService(store, { mailer: settings.smtpUrl ? smtpMailer(settings.smtpUrl) : undefined });

function dispensaryIds(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',').map((part) => part.trim());
  if (parts.some((part) => part === '')) {
    throw new ServiceError(
      'invalid_request',
      'List the dispensaries by id, separated by commas: --dispensaries 1,4',
    );
  }
  return parts.map((part) => parseId(part, 'A dispensary id'));
}

/**
 * Prints a new link. When the SMTP server refused it, the link is printed all the same (it works: the
 * account and link are stored) and the command fails, saying why, so that a script notices.
 */
function emitLink(options: CommonOptions, issued: IssuedLink, what: string): void {
  const { account } = issued;
  emitNewLink(
    options,
    issuedLinkRecord(issued),
    `${what} ${account.email} (${account.role}${account.dispensaryIds.length ? ` of ${account.dispensaryIds.join(', ')}` : ''}).`,
    { ...issued, email: account.email },
  );
}

/**
 * Prints a one-time link (an account's, an integrator's confirmation) after `what`, and whether it
 * went by email; when the SMTP server refused it, the command fails as emitLink says.
 */
export function emitNewLink(
  options: CommonOptions,
  record: unknown,
  what: string,
  issued: { email: string; url: string; expiresAt: string; emailed: boolean; emailError?: string },
): void {
  emit(
    options,
    record,
    [
      what,
      `One-time link (shown once, valid until ${issued.expiresAt}): ${issued.url}`,
      ...(issued.emailed
        ? [`Emailed to ${issued.email}.`]
        : issued.emailError === undefined
          ? ['Not emailed (no --smtp-url): send it to the person yourself.']
          : []),
    ].join('\n'),
  );
  if (issued.emailError !== undefined) {
    if (!options.json) process.stderr.write(`error: ${issued.emailError}\n`);
    process.exitCode = 1;
  }
}

export async function invite(
  options: CommonOptions & { email: string; role: string; dispensaries?: string },
  settings: AccountCliSettings,
): Promise<void> {
  await withService(options, service(settings), async (accounts) => {
    const issued = await accounts.invite(
      { email: options.email, role: options.role, dispensaryIds: dispensaryIds(options.dispensaries) },
      CLI_OPERATOR,
      settings.publicUrl ?? DEFAULT_PUBLIC_URL,
    );
    emitLink(options, issued, 'Invited');
  });
}

export const list = listAction(service(), (accounts) => accounts.list(CLI_OPERATOR), {
  record: accountRecord,
  empty: 'No accounts yet. Invite one with: npx menu-api account invite --email ADDRESS --role operator',
  headers: ['ID', 'EMAIL', 'ROLE', 'DISPENSARIES', 'ACTIVE', 'CREATED'],
  row: (account) => [
    String(account.id),
    account.email,
    account.role,
    account.dispensaryIds.join(',') || 'all',
    account.active ? 'yes' : 'invited',
    account.createdAt,
  ],
});

export async function change(
  email: string,
  options: CommonOptions & { role?: string; dispensaries?: string },
) {
  await withService(options, service(), async (accounts) => {
    const changed = await accounts.change(
      email,
      { role: options.role, dispensaryIds: dispensaryIds(options.dispensaries) },
      CLI_OPERATOR,
    );
    emit(
      options,
      accountRecord(changed),
      `Changed ${changed.email}: ${changed.role}${changed.dispensaryIds.length ? ` of ${changed.dispensaryIds.join(', ')}` : ''}.`,
    );
  });
}

export async function remove(email: string, options: CommonOptions): Promise<void> {
  await withService(options, service(), async (accounts) => {
    await accounts.remove(email, CLI_OPERATOR);
    emit(options, { email, removed: true }, `Removed ${email}; its sessions have ended.`);
  });
}

export async function resetPassword(email: string, options: CommonOptions, settings: AccountCliSettings) {
  await withService(options, service(settings), async (accounts) => {
    const issued = await accounts.resetPassword(
      email,
      CLI_OPERATOR,
      settings.publicUrl ?? DEFAULT_PUBLIC_URL,
    );
    emitLink(options, issued, 'New password link for');
  });
}
