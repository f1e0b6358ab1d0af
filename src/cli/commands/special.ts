import type { Command } from 'commander';
import { Command as Cmd } from 'commander';
import type { SpecialOptions } from '../actions/special.js';
import { jsonAction } from '../options.js';

const actions = () => import('../actions/special.js');

type SpecialActions = ReturnType<Awaited<ReturnType<typeof actions>>['specialActions']>;

/** The options of a special's fields; `add` requires some of them (see below). */
function withFieldOptions(command: Command, adding: boolean): Command {
  const needed = (flags: string, description: string) =>
    adding ? command.requiredOption(flags, description) : command.option(flags, description);
  needed('--name <text>', 'what people read');
  needed('--kind <kind>', 'percent_off, amount_off or fixed_price');
  needed('--value <number>', 'the percent off, the amount off, or the fixed price (at most two decimals)');
  return command
    .option('--description <text>', 'more for people to read')
    .option('--item-ids <ids>', 'comma list of item ids it applies to')
    .option('--external-ids <ids>', 'comma list of items’ external ids it applies to')
    .option('--brands <names>', 'comma list of brands it applies to (any letter case)')
    .option('--product-types <types>', 'comma list of product types it applies to')
    .option('--tags <tags>', 'comma list of item tags it applies to')
    .option('--menu-type <type>', 'rec, med or both (default both)')
    .option('--starts-at <time>', 'from when (RFC 3339, such as 2026-04-20T16:00:00-07:00); none: already')
    .option('--ends-at <time>', 'until when (RFC 3339); none: no end')
    .option(
      '--days <days>',
      'comma list of weekdays (monday…sunday) in the store’s time zone; none: every day',
    )
    .option('--daily-start <HH:MM>', 'start of the daily window, store time; none: all day')
    .option(
      '--daily-end <HH:MM>',
      'end of the daily window, store time (earlier than the start: past midnight)',
    );
}

export function specialCommand(): Command {
  const command = new Cmd('special').description(
    'a dispensary’s specials: lower prices for the items they target, on a schedule in the store’s time zone',
  );
  /** A subcommand about one dispensary's specials: the dispensary comes first. */
  const onDispensary = (name: string, description: string) =>
    command.command(name).description(description).argument('<dispensary>', 'the dispensary id');
  const define = <Extra extends object = object>(
    sub: Command,
    work: (specials: SpecialActions, args: string[], options: Extra) => Promise<void>,
  ) =>
    jsonAction<Extra>(sub, async (args, options) =>
      work((await actions()).specialActions(options), args, options),
    );

  define(onDispensary('list', 'list a dispensary’s specials'), (specials, [dispensary]) =>
    specials.list(dispensary!),
  );
  define<{ days?: string }>(
    onDispensary('schedule', 'when each special applies in the coming days, in the store’s time zone').option(
      '--days <days>',
      'how many days ahead, 1 to 31',
      '7',
    ),
    (specials, [dispensary], options) => specials.schedule(dispensary!, options.days ?? '7'),
  );
  define<SpecialOptions>(
    withFieldOptions(onDispensary('add', 'add a special (give at least one of the target lists)'), true),
    (specials, [dispensary], options) => specials.add(dispensary!, options),
  );
  define<SpecialOptions>(
    withFieldOptions(
      onDispensary(
        'change',
        'change some fields of a special (a target list given replaces all of them)',
      ).argument('<id>', 'the special id'),
      false,
    ),
    (specials, [dispensary, id], options) => specials.change(dispensary!, id!, options),
  );
  define(
    onDispensary('remove', 'remove a special').argument('<id>', 'the special id'),
    (specials, [dispensary, id]) => specials.remove(dispensary!, id!),
  );
  return command;
}
