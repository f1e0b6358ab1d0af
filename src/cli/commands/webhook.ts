import type { Command } from 'commander';
import { Command as Cmd } from 'commander';
import type { WebhookCliSettings } from '../actions/webhook.js';
import { jsonAction } from '../options.js';
import { readSetting } from '../settings-options.js';

const actions = () => import('../actions/webhook.js');

/** The global settings as this command sees them, read as `serve` reads them (WEBHOOK_ALLOW_PRIVATE=false is off). */
function settingsOf(command: Command): WebhookCliSettings {
  return {
    webhookKey: readSetting(command, 'webhookKey'),
    allowPrivate: readSetting(command, 'webhookAllowPrivate'),
  };
}

const FORM_HELP =
  'the request form whose item shape deliveries carry: a, b or v1 (v1: every field, with effective prices; default b)';

type WebhookActions = ReturnType<Awaited<ReturnType<typeof actions>>['webhookActions']>;

export function webhookCommand(): Command {
  const command = new Cmd('webhook').description(
    'subscribe integrators to a dispensary’s changes: signed HTTP POSTs, retried',
  );
  const define = <Extra extends object = object>(
    sub: Command,
    work: (webhooks: WebhookActions, args: string[], options: Extra) => Promise<void>,
  ) =>
    jsonAction<Extra>(sub, async (args, options) =>
      work((await actions()).webhookActions(options, settingsOf(sub)), args, options),
    );
  /** A subcommand about one webhook, named by its id. */
  const aboutOne = (
    name: string,
    description: string,
    work: (webhooks: WebhookActions, id: string) => Promise<void>,
  ) =>
    define(
      command.command(name).description(description).argument('<id>', 'the webhook id'),
      (webhooks, [id]) => work(webhooks, id!),
    );

  define<{ credential: string; dispensary: string; url: string; events?: string; form?: string }>(
    command
      .command('add')
      .description('subscribe a credential to a dispensary’s changes (the signing secret is shown once)')
      .requiredOption(
        '--credential <name>',
        'the integrator’s credential (username); it must be allowed to read the dispensary',
      )
      .requiredOption('--dispensary <id>', 'the dispensary id')
      .requiredOption('--url <url>', 'the https:// URL that receives the deliveries')
      .option('--events <types>', 'comma list of item.upserted, item.removed, store.updated (default: all)')
      .option('--form <form>', FORM_HELP),
    (webhooks, _args, options) => webhooks.add(options),
  );
  define(command.command('list').description('list webhooks (never their secrets)'), (webhooks) =>
    webhooks.list(),
  );
  aboutOne('show', 'show one webhook', (webhooks, id) => webhooks.show(id));
  define<{ limit?: string }>(
    command
      .command('deliveries')
      .description('list a webhook’s latest deliveries, newest first, with their attempts')
      .argument('<id>', 'the webhook id')
      .option('--limit <n>', 'how many (1 to 500)', '50'),
    (webhooks, [id], options) => webhooks.deliveries(id!, options.limit),
  );
  define(
    command
      .command('retry')
      .description(
        'send a delivery again now (a failed one, or a pending one without waiting; a delivered one is refused)',
      )
      .argument('<id>', 'the webhook id')
      .argument('<delivery_id>', 'the delivery id (msg_…)'),
    (webhooks, [id, delivery]) => webhooks.retry(id!, delivery!),
  );
  aboutOne('disable', 'stop sending to a webhook (changes still queue up)', (webhooks, id) =>
    webhooks.setEnabled(id, false),
  );
  aboutOne('enable', 'send to a webhook again, starting with what queued up', (webhooks, id) =>
    webhooks.setEnabled(id, true),
  );
  define(
    command
      .command('set-form')
      .description('choose the request form whose item shape a webhook’s deliveries carry')
      .argument('<id>', 'the webhook id')
      .argument('<form>', FORM_HELP),
    (webhooks, [id, form]) => webhooks.setForm(id!, form!),
  );
  aboutOne(
    'rotate-secret',
    'replace a webhook’s signing secret (shown once; the old one stops at once)',
    (webhooks, id) => webhooks.rotateSecret(id),
  );
  aboutOne('remove', 'remove a webhook and its deliveries', (webhooks, id) => webhooks.remove(id));
  return command;
}
