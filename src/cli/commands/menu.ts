import { Command, Option } from 'commander';
import { FORM_B_NAMES, type FormBNames } from '../../config.js';
import type { MenuFileFormat } from '../../services/menus.js';
import { MENU_FILE_FORMATS } from '../option-values.js';
import { type CommonOptions, jsonAction } from '../options.js';

const actions = () => import('../actions/menu.js');

type MenuActions = Awaited<ReturnType<typeof actions>>;

/** Options of the commands that change one item. */
type OnItem = { dispensary: string; item: string };

export function menuCommand(): Command {
  const command = new Command('menu').description("load, export and edit a dispensary's menu");
  /**
   * A command that changes one item: it names the dispensary and the item, and takes at most one
   * argument (`argument`: its name and description), which `run` is handed with the options.
   */
  const itemAction = (
    name: string,
    description: string,
    argument: [name: string, description: string] | undefined,
    run: (menu: MenuActions, argument: string, options: CommonOptions & OnItem) => Promise<void>,
  ) => {
    const sub = command
      .command(name)
      .description(description)
      .requiredOption('--dispensary <id>', 'dispensary id')
      .requiredOption('--item <id>', 'item id, or ext: and its external_id');
    if (argument) sub.argument(...argument);
    jsonAction<OnItem>(sub, async ([value], options) => run(await actions(), value ?? '', options));
  };

  jsonAction<{ dispensary: string; format?: string; dryRun?: boolean }>(
    command
      .command('import')
      .description("replace a dispensary's whole menu from a JSON or CSV file, atomically")
      .requiredOption('--dispensary <id>', 'dispensary id')
      .argument(
        '<file>',
        'a JSON array of items (canonical, Form A or Form B names) or a CSV with one row per price entry',
      )
      .addOption(
        new Option('--format <format>', 'file format (default: from the file extension)').choices(
          MENU_FILE_FORMATS,
        ),
      )
      .option('--dry-run', 'validate only; change nothing'),
    async ([file], options) => (await actions()).importMenu(file!, options),
  );
  jsonAction<{
    dispensary: string;
    form: string;
    format: MenuFileFormat;
    formBNames: FormBNames;
    output?: string;
  }>(
    command
      .command('export')
      .description('write a menu as JSON or CSV; import reads it back unchanged')
      .requiredOption('--dispensary <id>', 'dispensary id')
      .addOption(
        new Option(
          '--form <form>',
          'field names: canonical (every field), a (Form A) or b (Form B, active items)',
        )
          .choices(['canonical', 'a', 'b'])
          .default('canonical'),
      )
      .addOption(new Option('--format <format>', 'file format').choices(MENU_FILE_FORMATS).default('json'))
      .addOption(
        new Option('--form-b-names <names>', 'Form B spellings').choices(FORM_B_NAMES).default('both'),
      )
      .option('--output <file>', 'write to a file instead of standard output'),
    async (_args, options) => (await actions()).exportMenu(options),
  );
  itemAction(
    'set-active',
    'show (true) or hide (false) one item',
    ['<active>', 'true or false'],
    (menu, active, options) => menu.setActive(active, options),
  );
  jsonAction<{ dispensary: string }>(
    command
      .command('upsert')
      .description(
        'partial sync: create or replace the items of a JSON file (by id, or without one by name and brand); other items stay',
      )
      .requiredOption('--dispensary <id>', 'dispensary id')
      .argument('<file>', 'a JSON array of items (canonical, Form A or Form B names)'),
    async ([file], options) => (await actions()).upsert(file!, options),
  );
  itemAction('delete-item', 'delete one item', undefined, (menu, _none, options) => menu.deleteItem(options));
  itemAction(
    'patch-item',
    'change some fields of one item, for example \'{"name": "Blue Dream 1g"}\'',
    ['<fields>', 'a JSON object of item fields'],
    (menu, fields, options) => menu.patchItem(fields, options),
  );
  itemAction(
    'import-lab-result',
    'import an OpenTHC Lab_Result JSON file onto one item: its cannabinoids, terpenes and batch (lab, certificate)',
    ['<file>', 'an OpenTHC Lab_Result document (JSON)'],
    (menu, file, options) => menu.importLabResultFile(file, options),
  );

  return command;
}
