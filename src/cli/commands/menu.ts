import { Command, Option } from 'commander';
import { FORM_B_NAMES, type FormBNames } from '../../config.js';
import type { MenuFileFormat } from '../../services/menus.js';
import { MENU_FILE_FORMATS } from '../option-values.js';
import { commonOptions, jsonOption } from '../options.js';

const actions = () => import('../actions/menu.js');

/** Options of the commands that change one item. */
type OnItem = { dispensary: string; item: string };

export function menuCommand(): Command {
  const command = new Command('menu').description("load, export and edit a dispensary's menu");

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
    .option('--dry-run', 'validate only; change nothing')
    .addOption(jsonOption())
    .action(async (file: string, _options, self: Command) =>
      (await actions()).importMenu(
        file,
        commonOptions<{ dispensary: string; format?: string; dryRun?: boolean }>(self),
      ),
    );

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
    .addOption(new Option('--form-b-names <names>', 'Form B spellings').choices(FORM_B_NAMES).default('both'))
    .option('--output <file>', 'write to a file instead of standard output')
    .addOption(jsonOption())
    .action(async (_options, self: Command) =>
      (await actions()).exportMenu(
        commonOptions<{
          dispensary: string;
          form: string;
          format: MenuFileFormat;
          formBNames: FormBNames;
          output?: string;
        }>(self),
      ),
    );

  command
    .command('set-active')
    .description('show (true) or hide (false) one item')
    .requiredOption('--dispensary <id>', 'dispensary id')
    .requiredOption('--item <id>', 'item id')
    .argument('<active>', 'true or false')
    .addOption(jsonOption())
    .action(async (active: string, _options, self: Command) =>
      (await actions()).setActive(active, commonOptions<OnItem>(self)),
    );

  command
    .command('upsert')
    .description('partial sync: create or replace the items in a JSON file by id; other items stay')
    .requiredOption('--dispensary <id>', 'dispensary id')
    .argument('<file>', 'a JSON array of items (canonical, Form A or Form B names)')
    .addOption(jsonOption())
    .action(async (file: string, _options, self: Command) =>
      (await actions()).upsert(file, commonOptions<{ dispensary: string }>(self)),
    );

  command
    .command('delete-item')
    .description('delete one item')
    .requiredOption('--dispensary <id>', 'dispensary id')
    .requiredOption('--item <id>', 'item id')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => (await actions()).deleteItem(commonOptions<OnItem>(self)));

  command
    .command('patch-item')
    .description('change some fields of one item, for example \'{"name": "Blue Dream 1g"}\'')
    .requiredOption('--dispensary <id>', 'dispensary id')
    .requiredOption('--item <id>', 'item id')
    .argument('<fields>', 'a JSON object of item fields')
    .addOption(jsonOption())
    .action(async (fields: string, _options, self: Command) =>
      (await actions()).patchItem(fields, commonOptions<OnItem>(self)),
    );

  return command;
}
