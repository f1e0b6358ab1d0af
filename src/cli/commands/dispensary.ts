import { Command } from 'commander';
import { STORE_FIELD_HELP, STORE_FIELDS } from '../option-values.js';
import { jsonAction } from '../options.js';

const actions = () => import('../actions/dispensary.js');

export function dispensaryCommand(): Command {
  const command = new Command('dispensary').description('onboard dispensaries and manage their tokens');
  /** A command on one dispensary, named by its id. */
  const onOne = (name: string, description: string) =>
    command.command(name).description(description).argument('<id>', 'dispensary id');

  jsonAction<{ name: string }>(
    command
      .command('create')
      .description('create a dispensary and print its token (shown once: hand it to the dispensary)')
      .requiredOption('--name <name>', 'the dispensary name'),
    async (_args, options) => (await actions()).create(options),
  );
  jsonAction(
    command.command('list').description('list dispensaries with their item counts'),
    async (_args, options) => (await actions()).list(options),
  );
  jsonAction<{ graceSeconds: string }>(
    onOne(
      'rotate-token',
      'replace a dispensary token; the old one keeps working for the grace period',
    ).option(
      '--grace-seconds <seconds>',
      'how long the old token keeps working (0: stop it at once)',
      '86400',
    ),
    async ([id], options) => (await actions()).rotateToken(id!, options),
  );
  jsonAction<{ yes?: boolean }>(
    onOne('remove', 'delete a dispensary and its whole menu (asks first on a terminal)').option(
      '--yes',
      'do not ask: needed when there is no terminal to ask on (scripts, CI)',
    ),
    async ([id], options) => (await actions()).remove(id!, options),
  );
  jsonAction(onOne('show', 'show a dispensary and its store information'), async ([id], options) =>
    (await actions()).show(id!, options),
  );

  jsonAction<{ slug?: string; showStock?: boolean; regularPrice?: boolean; potency?: boolean }>(
    onOne(
      'publish',
      'publish the public menu page, board and embed (/m/SLUG, /board/SLUG); the slug is suggested from the name when left out',
    )
      .option('--slug <slug>', '3 to 64 characters of a-z, 0-9 and -, unique')
      .option(
        '--show-stock',
        'show stock quantities on the public pages (default: only in stock or sold out)',
      )
      .option(
        '--no-regular-price',
        "leave out a special's struck-through regular price (Massachusetts treats it as prohibited advertising)",
      )
      .option('--no-potency', 'leave out the potency badges (New York restricts promoting potency)'),
    async ([id], options) => (await actions()).publish(id!, options),
  );
  jsonAction(
    onOne('unpublish', 'take the public pages down (every public URL answers 404 within a second)'),
    async ([id], options) => (await actions()).unpublish(id!, options),
  );

  const update = onOne(
    'update',
    'set store information (what GET /store answers); "null" clears a field',
  ).option('--from-file <file>', 'a JSON object of store fields (hours included)');
  // --json comes before the field options here, as the help has always listed it.
  jsonAction<Record<string, string | undefined>>(update, async ([id], options) =>
    (await actions()).update(id!, options),
  );
  for (const field of STORE_FIELDS)
    update.option(`--${field.replaceAll('_', '-')} <value>`, STORE_FIELD_HELP[field]);

  return command;
}
