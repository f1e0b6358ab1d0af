import { smtpMailer } from '../../infra/mailer.js';
import { CLI_OPERATOR } from '../../services/accounts.js';
import { type IntegratorRef, IntegratorService } from '../../services/integrators.js';
import { confirmationLinkRecord, integratorRecord } from '../../services/records.js';
import type { Integrator, Store } from '../../store/store.js';
import { listAction, withService } from '../context.js';
import type { CommonOptions } from '../options.js';
import { emit } from '../output.js';
import { type AccountCliSettings, DEFAULT_PUBLIC_URL, emitNewLink } from './account.js';

const service = (store: Store) => new IntegratorService(store);
const mailingService = (settings: AccountCliSettings) => (store: Store) =>
  new IntegratorService(store, { mailer: settings.smtpUrl ? smtpMailer(settings.smtpUrl) : undefined });

/** An integrator as the commands name it: its account id, or its email. */
const refOf = (text: string): IntegratorRef => (/^\d{1,10}$/.test(text) ? Number(text) : text);

export const list = listAction(service, (integrators) => integrators.list(CLI_OPERATOR), {
  record: integratorRecord,
  empty: 'No integrators yet. They register themselves at /developers on the server.',
  headers: ['ID', 'EMAIL', 'NAME', 'COMPANY', 'STATUS', 'CREDENTIAL', 'REGISTERED'],
  row: (integrator) => [
    String(integrator.accountId),
    integrator.email,
    integrator.name,
    integrator.company,
    integrator.status,
    integrator.credentialUsername ?? '-',
    integrator.createdAt,
  ],
});

function decided(options: CommonOptions, integrator: Integrator, text: string): void {
  emit(options, integratorRecord(integrator), text);
}

export async function approve(ref: string, options: CommonOptions): Promise<void> {
  await withService(options, service, async (integrators) => {
    const approved = await integrators.approve(refOf(ref), CLI_OPERATOR);
    decided(
      options,
      approved,
      `Approved ${approved.email}: it may sign in, and reads with credential ${approved.credentialUsername} (it sets that credential's password in its portal).`,
    );
  });
}

export async function decline(ref: string, options: CommonOptions): Promise<void> {
  await withService(options, service, async (integrators) => {
    const declined = await integrators.decline(refOf(ref), CLI_OPERATOR);
    decided(options, declined, `Declined ${declined.email}.`);
  });
}

/** The operator's new confirmation link for a registration whose email never came (or was lost). */
export async function confirmLink(
  ref: string,
  options: CommonOptions,
  settings: AccountCliSettings,
): Promise<void> {
  await withService(options, mailingService(settings), async (integrators) => {
    const link = await integrators.confirmationLink(
      refOf(ref),
      CLI_OPERATOR,
      settings.publicUrl ?? DEFAULT_PUBLIC_URL,
    );
    emitNewLink(
      options,
      confirmationLinkRecord(link),
      `Confirmation link for ${link.email} (earlier links stop working).`,
      link,
    );
  });
}
