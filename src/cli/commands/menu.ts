import { Command, Option } from 'commander';
import { FORM_B_NAMES, type FormBNames } from '../../config.js';
import type { MenuFileFormat } from '../../services/menus.js';
import { MENU_FILE_FORMATS } from '../option-values.js';
import { jsonAction } from '../options.js';

const actions = () => import('../actions/menu.js');

/** Options of the commands that change one item. */
type OnItem = { dispensary: string; item: string };

export function menuCommand(): Command {
  const command = new Command('menu').description("load, export and edit a dispensary's menu");
  /** A command that changes one item: it names the dispensary and the item. */
  const itemCommand = (name: string, description: string) =>
    command
      .command(name)
      .description(description)
      .requiredOption('--dispensary <id>', 'dispensary id')
      .requiredOption('--item <id>', 'item id, or ext: and its external_id');

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
  jsonAction<OnItem>(
    itemCommand('set-active', 'show (true) or hide (false) one item').argument('<active>', 'true or false'),
    async ([active], options) => (await actions()).setActive(active!, options),
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
  jsonAction<OnItem>(itemCommand('delete-item', 'delete one item'), async (_args, options) =>
    (await actions()).deleteItem(options),
  );
  jsonAction<OnItem>(
    itemCommand(
      'patch-item',
      'change some fields of one item, for example \'{"name": "Blue Dream 1g"}\'',
    ).argument('<fields>', 'a JSON object of item fields'),
    async ([fields], options) => (await actions()).patchItem(fields!, options),
  );
  jsonAction<OnItem>(
    itemCommand(
      'import-lab-result',
      'import an OpenTHC Lab_Result JSON file onto one item: its cannabinoids, terpenes and batch (lab, certificate)',
    ).argument('<file>', 'an OpenTHC Lab_Result document (JSON)'),
    async ([file], options) => (await actions()).importLabResultFile(file!, options),
  );

  return command;
}
