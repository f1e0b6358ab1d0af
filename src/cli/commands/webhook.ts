import type { Command } from 'commander';
import { Command as Cmd } from 'commander';
import type { WebhookCliSettings } from '../actions/webhook.js';
import { type CommonOptions, jsonAction } from '../options.js';
import { readSetting } from '../settings-options.js';

const actions = () => import('../actions/webhook.js');

/** The global settings as this command sees them, read as `serve` reads them (WEBHOOK_ALLOW_PRIVATE=false is off). */
function settingsOf(command: Command): WebhookCliSettings {
  return {
    webhookKey: readSetting(command, 'webhookKey'),
    allowPrivate: readSetting(command, 'webhookAllowPrivate'),
  };
}

type Own = { webhookKey?: string; webhookAllowPrivate?: boolean };

export function webhookCommand(): Command {
  const command = new Cmd('webhook').description(
    'subscribe integrators to a dispensary’s changes: signed HTTP POSTs, retried',
  );
  const define = <Extra extends object = object>(
    sub: Command,
    work: (
      module: Awaited<ReturnType<typeof actions>>,
      args: string[],
      options: CommonOptions & Own & Extra,
      settings: WebhookCliSettings,
    ) => Promise<void>,
  ) =>
    jsonAction<Own & Extra>(sub, async (args, options) =>
      work(await actions(), args, options, settingsOf(sub)),
    );

  define<{ credential: string; dispensary: string; url: string; events?: string }>(
    command
      .command('add')
      .description('subscribe a credential to a dispensary’s changes (the signing secret is shown once)')
      .requiredOption(
        '--credential <name>',
        'the integrator’s credential (username); it must be allowed to read the dispensary',
      )
      .requiredOption('--dispensary <id>', 'the dispensary id')
      .requiredOption('--url <url>', 'the https:// URL that receives the deliveries')
      .option('--events <types>', 'comma list of item.upserted, item.removed, store.updated (default: all)'),
    (module, _args, options, settings) => module.add(options, settings),
  );
  define(
    command.command('list').description('list webhooks (never their secrets)'),
    (module, _args, options, settings) => module.list(options, settings),
  );
  define(
    command.command('show').description('show one webhook').argument('<id>', 'the webhook id'),
    (module, [id], options, settings) => module.show(id!, options, settings),
  );
  define<{ limit?: string }>(
    command
      .command('deliveries')
      .description('list a webhook’s latest deliveries, newest first, with their attempts')
      .argument('<id>', 'the webhook id')
      .option('--limit <n>', 'how many (1 to 500)', '50'),
    (module, [id], options, settings) => module.deliveries(id!, options, settings),
  );
  define(
    command
      .command('retry')
      .description('send a delivery again now (a failed one, or a pending one without waiting)')
      .argument('<id>', 'the webhook id')
      .argument('<delivery_id>', 'the delivery id (msg_…)'),
    (module, [id, delivery], options, settings) => module.retry(id!, delivery!, options, settings),
  );
  define(
    command
      .command('disable')
      .description('stop sending to a webhook (changes still queue up)')
      .argument('<id>', 'the webhook id'),
    (module, [id], options, settings) => module.setEnabled(id!, false, options, settings),
  );
  define(
    command
      .command('enable')
      .description('send to a webhook again, starting with what queued up')
      .argument('<id>', 'the webhook id'),
    (module, [id], options, settings) => module.setEnabled(id!, true, options, settings),
  );
  define(
    command
      .command('rotate-secret')
      .description('replace a webhook’s signing secret (shown once; the old one stops at once)')
      .argument('<id>', 'the webhook id'),
    (module, [id], options, settings) => module.rotateSecret(id!, options, settings),
  );
  define(
    command
      .command('remove')
      .description('remove a webhook and its deliveries')
      .argument('<id>', 'the webhook id'),
    (module, [id], options, settings) => module.remove(id!, options, settings),
  );
  return command;
}
