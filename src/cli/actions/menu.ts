import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { SingleBar } from 'cli-progress';
import type { FormBNames } from '../../config.js';
import { refText } from '../../domain/item-ref.js';
import { MENU_FORMS } from '../../forms/index.js';
import { ServiceError } from '../../services/errors.js';
import { importLabResult } from '../../services/lab-results.js';
import { type MenuFileFormat, MenuService, type ProgressListener } from '../../services/menus.js';
import { importReportRecord } from '../../services/records.js';
import type { Store } from '../../store/store.js';
import { parseId, parseItem, withService } from '../context.js';
import { MENU_FILE_FORMATS } from '../option-values.js';
import type { CommonOptions } from '../options.js';
import { emit } from '../output.js';

const menuService = (store: Store) => new MenuService(store, MENU_FORMS);

type OnItem = CommonOptions & { dispensary: string; item: string };

function formatOf(file: string, chosen: string | undefined): MenuFileFormat {
  const format = (chosen ?? extname(file).slice(1)).toLowerCase();
  if ((MENU_FILE_FORMATS as readonly string[]).includes(format)) return format as MenuFileFormat;
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

export async function importMenu(
  file: string,
  options: CommonOptions & { dispensary: string; format?: string; dryRun?: boolean },
): Promise<void> {
  await withService(options, menuService, async (menus) => {
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
      { ...importReportRecord(report), dry_run: report.dryRun },
      `${verb} ${report.items} items (${report.activeItems} active, ${report.priceEntries} price entries) into dispensary ${dispensaryId}.`,
    );
  });
}

export async function exportMenu(
  options: CommonOptions & {
    dispensary: string;
    form: string;
    format: MenuFileFormat;
    formBNames: FormBNames;
    output?: string;
  },
): Promise<void> {
  await withService(
    options,
    menuService,
    async (menus) => {
      const dispensaryId = parseId(options.dispensary, 'The dispensary id');
      const text = await menus.export(dispensaryId, options.form, options.format, options.formBNames);
      if (options.output) {
        await writeFile(options.output, text);
        emit(
          options,
          { dispensary_id: dispensaryId, file: options.output },
          `Wrote the menu of dispensary ${dispensaryId} to ${options.output}.`,
        );
      } else {
        // The export is itself the machine-readable result, with or without --json.
        process.stdout.write(text);
      }
    },
    'read',
  );
}

export async function setActive(active: string, options: OnItem): Promise<void> {
  await withService(options, menuService, async (menus) => {
    if (active !== 'true' && active !== 'false') {
      throw new ServiceError('invalid_request', `The last argument must be true or false, not "${active}".`);
    }
    const dispensaryId = parseId(options.dispensary, 'The dispensary id');
    const item = parseItem(options.item);
    const itemId = 'id' in item ? item.id : refText(item);
    await menus.setActive(dispensaryId, item, active === 'true');
    emit(
      options,
      { dispensary_id: dispensaryId, item_id: itemId, active: active === 'true' },
      `Item ${itemId} of dispensary ${dispensaryId} is now ${active === 'true' ? 'active' : 'inactive'}.`,
    );
  });
}

export async function upsert(file: string, options: CommonOptions & { dispensary: string }): Promise<void> {
  await withService(options, menuService, async (menus) => {
    const dispensaryId = parseId(options.dispensary, 'The dispensary id');
    const raw = await readJson(file);
    const result = await menus.upsert(dispensaryId, raw);
    emit(
      options,
      result,
      `Created ${result.created.length} and replaced ${result.updated.length} items of dispensary ${dispensaryId}.`,
    );
  });
}

export async function deleteItem(options: OnItem): Promise<void> {
  await withService(options, menuService, async (menus) => {
    const dispensaryId = parseId(options.dispensary, 'The dispensary id');
    const item = parseItem(options.item);
    const itemId = 'id' in item ? item.id : refText(item);
    await menus.deleteItem(dispensaryId, item);
    emit(
      options,
      { dispensary_id: dispensaryId, item_id: itemId, deleted: true },
      `Deleted item ${itemId} of dispensary ${dispensaryId}.`,
    );
  });
}

export async function patchItem(fields: string, options: OnItem): Promise<void> {
  await withService(options, menuService, async (menus) => {
    const dispensaryId = parseId(options.dispensary, 'The dispensary id');
    const item = parseItem(options.item);
    const itemId = 'id' in item ? item.id : refText(item);
    let patch: unknown;
    try {
      patch = JSON.parse(fields);
    } catch (error) {
      throw new ServiceError('invalid_request', `The fields are not valid JSON: ${(error as Error).message}`);
    }
    const read = await menus.patchItem(dispensaryId, item, patch);
    emit(options, read, `Updated item ${itemId} of dispensary ${dispensaryId}.`);
  });
}

export async function importLabResultFile(file: string, options: OnItem): Promise<void> {
  await withService(options, menuService, async (menus) => {
    const dispensaryId = parseId(options.dispensary, 'The dispensary id');
    const item = parseItem(options.item);
    const result = await importLabResult(menus, dispensaryId, item, await readJson(file));
    const skipped = result.skipped.map(
      (entry) => `\n  skipped ${entry.path} (${entry.metric ?? '-'}): ${entry.reason}`,
    );
    emit(
      options,
      result,
      `Imported lab result ${result.lab_result_id ?? '(no id)'} onto item ${result.item.id} of dispensary ${dispensaryId}: ${result.mapped.cannabinoids} cannabinoids, ${result.mapped.terpenes} terpenes, batch ${result.mapped.batch.join(', ') || 'unchanged'}.${skipped.join('')}`,
    );
  });
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
