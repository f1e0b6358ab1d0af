import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { publishingRecord } from '../../domain/publishing.js';
import { toStoreInfoRecord } from '../../domain/store-info.js';
import { DispensaryService } from '../../services/dispensaries.js';
import { ServiceError } from '../../services/errors.js';
import { dispensarySummaryRecord } from '../../services/records.js';
import type { Store } from '../../store/store.js';
import { listAction, parseId, withService } from '../context.js';
import { STORE_FIELDS } from '../option-values.js';
import type { CommonOptions } from '../options.js';
import { emit, table } from '../output.js';

const dispensaryService = (store: Store) => new DispensaryService(store);

export async function create(options: CommonOptions & { name: string }): Promise<void> {
  await withService(options, dispensaryService, async (dispensaries) => {
    const created = await dispensaries.create(options.name);
    emit(
      options,
      { id: created.id, name: created.name, token: created.token },
      `Created dispensary ${created.id} (${created.name}).\nToken (shown once, store it now): ${created.token}`,
    );
  });
}

export const list = listAction(dispensaryService, (dispensaries) => dispensaries.list(), {
  record: dispensarySummaryRecord,
  empty: 'No dispensaries yet. Create one with: npx menu-api dispensary create --name NAME',
  headers: ['ID', 'NAME', 'ITEMS', 'ACTIVE', 'PUBLIC', 'UPDATED'],
  row: (d) => [
    d.id,
    d.name,
    d.itemCount,
    d.activeItemCount,
    // PUBLIC: the public pages' slug (/m/SLUG, /board/SLUG) while published, else "private".
    d.published && d.slug ? `/m/${d.slug}` : 'private',
    d.updatedAt,
  ],
});

export async function rotateToken(
  id: string,
  options: CommonOptions & { graceSeconds: string },
): Promise<void> {
  await withService(options, dispensaryService, async (dispensaries) => {
    const grace = /^\d+$/.test(options.graceSeconds) ? Number(options.graceSeconds) : Number.NaN;
    const issued = await dispensaries.rotateToken(parseId(id, 'The dispensary id'), undefined, grace);
    emit(options, issued, `New token for dispensary ${issued.id} (shown once): ${issued.token}`);
  });
}

export async function remove(id: string, options: CommonOptions & { yes?: boolean }): Promise<void> {
  await withService(options, dispensaryService, async (dispensaries) => {
    const dispensaryId = parseId(id, 'The dispensary id');
    if (!options.yes) {
      const dispensary = await dispensaries.get(dispensaryId);
      const what = `dispensary ${dispensaryId} (${dispensary.name}) and its whole menu`;
      if (!process.stdin.isTTY || !process.stderr.isTTY) {
        throw new ServiceError(
          'invalid_request',
          `Removing ${what} cannot be undone, and there is no terminal to ask on. Pass --yes to confirm.`,
        );
      }
      if (!(await confirm(`Remove ${what}? This cannot be undone. Type yes to confirm: `))) {
        throw new ServiceError(
          'invalid_request',
          `Nothing was removed. Pass --yes to remove without asking.`,
        );
      }
    }
    await dispensaries.remove(dispensaryId);
    emit(options, { id: dispensaryId, removed: true }, `Removed dispensary ${dispensaryId}.`);
  });
}

export async function publish(
  id: string,
  options: CommonOptions & { slug?: string; showStock?: boolean; regularPrice?: boolean; potency?: boolean },
): Promise<void> {
  await withService(options, dispensaryService, async (dispensaries) => {
    const dispensaryId = parseId(id, 'The dispensary id');
    // Each publish states every switch, as --show-stock always has: what is not asked for is the default.
    const body: Record<string, unknown> = {
      published: true,
      show_stock: options.showStock === true,
      show_regular_price: options.regularPrice !== false,
      show_potency: options.potency !== false,
    };
    if (options.slug !== undefined) body.slug = options.slug;
    const publishing = await dispensaries.setPublishing(dispensaryId, body);
    emit(
      options,
      { id: dispensaryId, ...publishingRecord(publishing) },
      `Published dispensary ${dispensaryId} at /m/${publishing.slug} (board: /board/${publishing.slug}; embed: <div data-menu="${publishing.slug}"></div>)${publishing.showStock ? ', with stock quantities' : ''}${publishing.showRegularPrice ? '' : ', without regular prices struck through'}${publishing.showPotency ? '' : ', without potency badges'}.`,
    );
  });
}

export async function unpublish(id: string, options: CommonOptions): Promise<void> {
  await withService(options, dispensaryService, async (dispensaries) => {
    const dispensaryId = parseId(id, 'The dispensary id');
    const publishing = await dispensaries.setPublishing(dispensaryId, { published: false });
    emit(
      options,
      { id: dispensaryId, ...publishingRecord(publishing) },
      `Unpublished dispensary ${dispensaryId}: its public pages answer 404 within a second.`,
    );
  });
}

export async function show(id: string, options: CommonOptions): Promise<void> {
  await withService(
    options,
    dispensaryService,
    async (dispensaries) => {
      const dispensaryId = parseId(id, 'The dispensary id');
      const info = toStoreInfoRecord(await dispensaries.storeInfo(dispensaryId));
      const rows = Object.entries(info).map(([field, value]) => [
        field,
        value === null ? '-' : typeof value === 'object' ? JSON.stringify(value) : String(value),
      ]);
      emit(options, { id: dispensaryId, ...info }, table(['FIELD', 'VALUE'], rows));
    },
    'read',
  );
}

export async function update(
  id: string,
  options: CommonOptions & Record<string, string | undefined>,
): Promise<void> {
  await withService(options, dispensaryService, async (dispensaries) => {
    const dispensaryId = parseId(id, 'The dispensary id');
    const patch: Record<string, unknown> = options.fromFile ? await readJsonObject(options.fromFile) : {};
    for (const field of STORE_FIELDS) {
      const value = options[camel(field)];
      if (value === undefined) continue;
      patch[field] =
        value === 'null'
          ? null
          : field === 'hours'
            ? parseJson(value, '--hours')
            : field === 'menu_types'
              ? value.split(',').map((type) => type.trim())
              : value;
    }
    if (Object.keys(patch).length === 0) {
      throw new ServiceError(
        'invalid_request',
        'Nothing to update: give at least one field, for example --city Oakland.',
      );
    }
    const info = await dispensaries.updateStoreInfo(dispensaryId, patch);
    emit(
      options,
      { id: dispensaryId, ...info },
      `Updated dispensary ${dispensaryId}: ${Object.keys(patch).join(', ')}.`,
    );
  });
}

/** Asks on the terminal (the question on stderr, so that stdout stays the result); true for "yes" or "y". */
async function confirm(question: string): Promise<boolean> {
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await readline.question(question);
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    readline.close();
  }
}

const camel = (field: string) => field.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ServiceError('invalid_request', `${what} is not valid JSON: ${(error as Error).message}`);
  }
}

async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  const value = parseJson(await readFile(file, 'utf8'), file);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ServiceError('invalid_request', `${file} must hold a JSON object of store fields.`);
  }
  return value as Record<string, unknown>;
}
