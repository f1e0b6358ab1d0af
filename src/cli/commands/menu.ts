import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import { FORM_B_NAMES } from '../../config.js';
import type { FormBNames } from '../../forms/form.js';
import { ServiceError } from '../../services/errors.js';
import type { MenuFileFormat, ProgressListener } from '../../services/menus.js';
import { commonOptions, jsonOption, parseId, withServices } from '../context.js';
import { emit } from '../output.js';

const FORMATS: MenuFileFormat[] = ['json', 'csv'];

function formatOf(file: string, chosen: string | undefined): MenuFileFormat {
  const format = (chosen ?? extname(file).slice(1)).toLowerCase();
  if ((FORMATS as string[]).includes(format)) return format as MenuFileFormat;
  throw new ServiceError(
    'invalid_request',
    `Cannot tell the format of ${file}: name it .json or .csv, or pass --format json|csv.`,
  );
}

/** A progress bar on a terminal for large files; nothing when output is piped or small. */
function progressBar(enabled: boolean): { listener?: ProgressListener; stop(): void } {
  if (!enabled || !process.stderr.isTTY) return { stop() {} };
  const bar = new SingleBar({ format: 'validating [{bar}] {value}/{total} items', stream: process.stderr });
  let started = false;
  return {
    listener: (done, total) => {
      if (total < 500) return;
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
    stop: () => started && bar.stop(),
  };
}

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
      new Option('--format <format>', 'file format (default: from the file extension)').choices(FORMATS),
    )
    .option('--dry-run', 'validate only; change nothing')
    .addOption(jsonOption())
    .action(async (file: string, _options, self: Command) => {
      const options = commonOptions<{
        dispensary: string;
        format?: string;
        dryRun?: boolean;
      }>(self);
      await withServices(options, async ({ menus }) => {
        const dispensaryId = parseId(options.dispensary, 'The dispensary id');
        const format = formatOf(file, options.format);
        const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
          throw new ServiceError('invalid_request', `Cannot read ${file}: ${error.code ?? error.message}.`);
        });
        const progress = progressBar(!options.json);
        let items: ReturnType<typeof menus.parse>;
        try {
          items = menus.parse(text, format, progress.listener);
        } finally {
          progress.stop();
        }
        const report = await menus.replace(dispensaryId, items, Boolean(options.dryRun));
        const verb = report.dryRun ? 'Would import' : 'Imported';
        emit(
          options,
          report,
          `${verb} ${report.items} items (${report.activeItems} active, ${report.priceEntries} price entries) into dispensary ${dispensaryId}.`,
        );
      });
    });

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
    .addOption(new Option('--format <format>', 'file format').choices(FORMATS).default('json'))
    .addOption(new Option('--form-b-names <names>', 'Form B spellings').choices(FORM_B_NAMES).default('both'))
    .option('--output <file>', 'write to a file instead of standard output')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions<{
        dispensary: string;
        form: string;
        format: MenuFileFormat;
        formBNames: FormBNames;
        output?: string;
      }>(self);
      await withServices(options, async ({ menus }) => {
        const dispensaryId = parseId(options.dispensary, 'The dispensary id');
        const text = await menus.export(dispensaryId, options.form, options.format, options.formBNames);
        if (options.output) {
          await writeFile(options.output, text);
          emit(
            options,
            { dispensaryId, file: options.output },
            `Wrote the menu of dispensary ${dispensaryId} to ${options.output}.`,
          );
        } else {
          // The export is itself the machine-readable result, with or without --json.
          process.stdout.write(text);
        }
      });
    });

  command
    .command('set-active')
    .description('show (true) or hide (false) one item')
    .requiredOption('--dispensary <id>', 'dispensary id')
    .requiredOption('--item <id>', 'item id')
    .argument('<active>', 'true or false')
    .addOption(jsonOption())
    .action(async (active: string, _options, self: Command) => {
      const options = commonOptions<{ dispensary: string; item: string }>(self);
      await withServices(options, async ({ menus }) => {
        if (active !== 'true' && active !== 'false') {
          throw new ServiceError(
            'invalid_request',
            `The last argument must be true or false, not "${active}".`,
          );
        }
        const dispensaryId = parseId(options.dispensary, 'The dispensary id');
        const itemId = parseId(options.item, 'The item id');
        await menus.setActive(dispensaryId, itemId, active === 'true');
        emit(
          options,
          { dispensaryId, itemId, active: active === 'true' },
          `Item ${itemId} of dispensary ${dispensaryId} is now ${active === 'true' ? 'active' : 'inactive'}.`,
        );
      });
    });

  command
    .command('upsert')
    .description('partial sync: create or replace the items in a JSON file by id; other items stay')
    .requiredOption('--dispensary <id>', 'dispensary id')
    .argument('<file>', 'a JSON array of items (canonical, Form A or Form B names)')
    .addOption(jsonOption())
    .action(async (file: string, _options, self: Command) => {
      const options = commonOptions<{ dispensary: string }>(self);
      await withServices(options, async ({ menus }) => {
        const dispensaryId = parseId(options.dispensary, 'The dispensary id');
        const raw = await readJson(file);
        const result = await menus.upsert(dispensaryId, raw);
        emit(
          options,
          result,
          `Created ${result.created.length} and replaced ${result.updated.length} items of dispensary ${dispensaryId}.`,
        );
      });
    });

  command
    .command('delete-item')
    .description('delete one item')
    .requiredOption('--dispensary <id>', 'dispensary id')
    .requiredOption('--item <id>', 'item id')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions<{ dispensary: string; item: string }>(self);
      await withServices(options, async ({ menus }) => {
        const dispensaryId = parseId(options.dispensary, 'The dispensary id');
        const itemId = parseId(options.item, 'The item id');
        await menus.deleteItem(dispensaryId, itemId);
        emit(
          options,
          { dispensaryId, itemId, deleted: true },
          `Deleted item ${itemId} of dispensary ${dispensaryId}.`,
        );
      });
    });

  command
    .command('patch-item')
    .description('change some fields of one item, for example \'{"name": "Blue Dream 1g"}\'')
    .requiredOption('--dispensary <id>', 'dispensary id')
    .requiredOption('--item <id>', 'item id')
    .argument('<fields>', 'a JSON object of item fields')
    .addOption(jsonOption())
    .action(async (fields: string, _options, self: Command) => {
      const options = commonOptions<{ dispensary: string; item: string }>(self);
      await withServices(options, async ({ menus }) => {
        const dispensaryId = parseId(options.dispensary, 'The dispensary id');
        const itemId = parseId(options.item, 'The item id');
        let patch: unknown;
        try {
          patch = JSON.parse(fields);
        } catch (error) {
          throw new ServiceError(
            'invalid_request',
            `The fields are not valid JSON: ${(error as Error).message}`,
          );
        }
        const item = await menus.patchItem(dispensaryId, itemId, patch);
        emit(options, item, `Updated item ${itemId} of dispensary ${dispensaryId}.`);
      });
    });

  return command;
}

async function readJson(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ServiceError('invalid_request', `Cannot read ${file}: ${error.code ?? error.message}.`);
  });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ServiceError('invalid_request', `${file} is not valid JSON: ${(error as Error).message}`);
  }
}
