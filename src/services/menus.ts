import type { FormBNames } from '../config.js';
import { toCanonicalRecord } from '../domain/canonical.js';
import type { MenuItem, MenuItemInput } from '../domain/item.js';
import { type ItemRead, toItemRead } from '../domain/item-reads.js';
import { type FieldAliases, type FieldProblem, validateItem, validateMenu } from '../domain/validate-item.js';
import { validateStockUpdates } from '../domain/validate-stock.js';
import { type Actor, type Store, UnmatchedStockError, type UpsertResult } from '../store/store.js';
import { type AfterWrite, notFound } from './dispensaries.js';
import { describeProblems, refusedWrite, ServiceError } from './errors.js';
import {
  externalIdClashes,
  type ItemOrRef,
  itemIdOf,
  matchByExternalId,
  noItem,
  rejected,
  resolveExternalStockRefs,
  withExternalIdsChecked,
} from './item-refs.js';
import { readCsv, writeCsv } from './menu-files/csv.js';

/** The largest menu one import or sync may carry. */
export const MAX_MENU_ITEMS = 20_000;

export type MenuFileFormat = 'json' | 'csv';

export interface ImportReport {
  dispensaryId: number;
  dryRun: boolean;
  items: number;
  activeItems: number;
  priceEntries: number;
}

/** A menu file read without throwing: the items that passed, and every problem. */
export interface CheckedMenu {
  items: MenuItemInput[];
  problems: FieldProblem[];
}

export type ProgressListener = (done: number, total: number) => void;

/**
 * What the menu rules need of the request forms. The forms sit above the services (they serve them
 * over HTTP), so whoever builds the services hands this in (src/forms/index.ts: MENU_FORMS).
 */
export interface MenuForms {
  /** Every form's item field spellings, so an import accepts any of them beside the canonical names. */
  aliases: FieldAliases;
  /** Every form's id, for the message that names them. */
  ids: readonly string[];
  /** The items in a form's wire shape, as its menu endpoint would send them; undefined for no such form. */
  toWire(formId: string, items: readonly MenuItem[], formBNames: FormBNames): unknown[] | undefined;
}

/** Reads, validates and replaces menus: the rules behind `menu import`, `menu export` and the sync API. */
export class MenuService {
  constructor(
    private readonly store: Store,
    private readonly forms: MenuForms,
    private readonly afterWrite: AfterWrite = async () => {},
  ) {}

  /** Parses and validates a menu file; every problem is collected, with its line (CSV) or index (JSON). */
  parse(text: string, format: MenuFileFormat, onProgress?: ProgressListener): MenuItemInput[] {
    const checked = this.check(text, format, onProgress);
    if (checked.problems.length > 0) throw rejected(checked.problems);
    return checked.items;
  }

  /**
   * Parses and validates a menu file without throwing: the items that passed and every problem (a
   * dry run's preview). CSV problems name their line (`line 3, price`), JSON ones their index.
   */
  check(text: string, format: MenuFileFormat, onProgress?: ProgressListener): CheckedMenu {
    if (format === 'json') {
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (error) {
        const problem = { field: 'file', message: `is not valid JSON: ${(error as Error).message}` };
        return { items: [], problems: [problem] };
      }
      const result = validateMenu(raw, this.forms.aliases, MAX_MENU_ITEMS);
      onProgress?.(result.items.length, result.items.length);
      return { items: result.items, problems: result.ok ? [] : result.problems };
    }
    const aliases = this.forms.aliases;
    const csv = readCsv(text, aliases);
    const problems = [...csv.problems];
    const items: MenuItemInput[] = [];
    const badLines = new Set(csv.problems.map((problem) => lineOf(problem.field)));
    for (const [index, raw] of csv.items.entries()) {
      const line = csv.lines[index]!;
      const result = validateItem(raw, aliases, `line ${line}, `);
      onProgress?.(index + 1, csv.items.length);
      if (!result.ok) {
        problems.push(...result.problems.map((problem) => atPriceLine(problem, csv.priceLines[index]!)));
        continue;
      }
      // A cell the reader refused (a number that is not one) rejects its item too.
      if ([line, ...csv.priceLines[index]!].some((at) => badLines.has(at))) continue;
      items.push(result.item);
    }
    if (items.length > MAX_MENU_ITEMS) {
      problems.push({
        field: 'csv',
        message: `has ${items.length} items; at most ${MAX_MENU_ITEMS} allowed`,
      });
    }
    return { items, problems: unique(problems) };
  }

  /** Validates a menu already parsed from JSON: an array of items in any form's names. */
  validate(raw: unknown): MenuItemInput[] {
    const result = validateMenu(raw, this.forms.aliases, MAX_MENU_ITEMS);
    if (!result.ok) throw rejected(result.problems);
    return result.items;
  }

  /** Replaces the dispensary's whole menu in one transaction, or (dry run) only checks that it could. */
  async replace(
    dispensaryId: number,
    items: MenuItemInput[],
    dryRun = false,
    actor?: Actor,
  ): Promise<ImportReport> {
    if (!(await this.store.dispensaries.get(dispensaryId))) throw notFound(dispensaryId);
    if (!dryRun) {
      await this.store.menus.replace(dispensaryId, items, actor);
      await this.afterWrite();
    }
    return {
      dispensaryId,
      dryRun,
      items: items.length,
      activeItems: items.filter((item) => item.active).length,
      priceEntries: items.reduce((sum, item) => sum + item.prices.length, 0),
    };
  }

  /**
   * Imports a menu file: a dry run reports what passed and every problem; otherwise any problem
   * rejects the file (nothing changes) and a clean one replaces the menu in one transaction.
   */
  async importFile(
    dispensaryId: number,
    text: string,
    format: MenuFileFormat,
    dryRun: boolean,
    actor?: Actor,
  ): Promise<{ report: ImportReport; problems: FieldProblem[] }> {
    const checked = this.check(text, format);
    if (!dryRun && checked.problems.length > 0) throw rejected(checked.problems);
    const report = await this.replace(dispensaryId, checked.items, dryRun, actor);
    return { report, problems: checked.problems };
  }

  async items(dispensaryId: number): Promise<MenuItem[]> {
    if (!(await this.store.dispensaries.get(dispensaryId))) throw notFound(dispensaryId);
    return this.store.menus.read(dispensaryId);
  }

  /**
   * Writes the menu as a file that `parse` reads back to the same menu. `canonical` keeps every field;
   * a form's export is that form's view (Form B lists only active items, Form A has no potency fields).
   */
  async export(
    dispensaryId: number,
    form: string,
    format: MenuFileFormat,
    formBNames: FormBNames = 'both',
  ): Promise<string> {
    const items = await this.items(dispensaryId);
    if (format === 'csv') {
      if (form !== 'canonical') {
        throw new ServiceError(
          'invalid_request',
          'CSV exports use the canonical columns; drop --form or use --format json.',
        );
      }
      return writeCsv(items);
    }
    if (form === 'canonical') return `${JSON.stringify(items.map(toCanonicalRecord), null, 2)}\n`;
    const wire = this.forms.toWire(form, items, formBNames);
    if (!wire) {
      const known = ['canonical', ...this.forms.ids].join(', ');
      throw new ServiceError('invalid_request', `There is no form "${form}". Use one of: ${known}.`);
    }
    return `${JSON.stringify(wire, null, 2)}\n`;
  }

  async setActive(dispensaryId: number, item: ItemOrRef, active: boolean, actor?: Actor): Promise<void> {
    if (!(await this.store.dispensaries.get(dispensaryId))) throw notFound(dispensaryId);
    const itemId = await itemIdOf(this.store, dispensaryId, item);
    if (!(await this.store.menus.setItemActive(dispensaryId, itemId, active, actor)))
      throw noItem(dispensaryId, item);
    await this.afterWrite();
  }

  /** Creates or replaces the given items by id (partial sync); items without an id are created. */
  async upsert(dispensaryId: number, raw: unknown, actor?: Actor): Promise<UpsertResult> {
    const given = this.validate(raw);
    if (!(await this.store.dispensaries.get(dispensaryId))) throw notFound(dispensaryId);
    const existing = await this.store.menus.read(dispensaryId);
    const items = matchByExternalId(given, existing);
    const clashes = externalIdClashes(items, existing);
    if (clashes.length > 0) throw rejected(clashes);
    const result = await withExternalIdsChecked(this.store, dispensaryId, items, () =>
      this.store.menus.upsertItems(dispensaryId, items, actor),
    );
    await this.afterWrite();
    return result;
  }

  async deleteItem(dispensaryId: number, item: ItemOrRef, actor?: Actor): Promise<void> {
    if (!(await this.store.dispensaries.get(dispensaryId))) throw notFound(dispensaryId);
    const itemId = await itemIdOf(this.store, dispensaryId, item);
    if (!(await this.store.menus.deleteItem(dispensaryId, itemId, actor))) throw noItem(dispensaryId, item);
    await this.afterWrite();
  }

  /**
   * Changes some fields of one item (`{"active": false}`, a new price list...): the fields given are
   * laid over the item as it is, and the result passes the same validation as an import.
   */
  async patchItem(dispensaryId: number, item: ItemOrRef, raw: unknown, actor?: Actor): Promise<ItemRead> {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new ServiceError(
        'invalid_request',
        'The body must be a JSON object with the item fields to change.',
      );
    }
    const menu = await this.items(dispensaryId);
    const itemId = await itemIdOf(this.store, dispensaryId, item);
    if ('id' in raw && (raw as { id: unknown }).id !== itemId) {
      throw new ServiceError('invalid_request', 'The id of an item cannot change; leave it out of the body.');
    }
    const current = menu.find((stored) => stored.id === itemId);
    if (!current) throw noItem(dispensaryId, item);
    const aliases = this.forms.aliases;
    const patch = canonicalNames(raw as Record<string, unknown>, aliases);
    const merged = withPrimaryImage({ ...toCanonicalRecord(current), ...patch }, current, patch);
    const result = validateItem(merged, aliases);
    if (!result.ok) throw rejected(result.problems);
    const asPatch = (problem: FieldProblem) => ({ ...problem, field: 'external_id' });
    const clashes = externalIdClashes([result.item], menu);
    if (clashes.length > 0) throw rejected(clashes.map(asPatch));
    await withExternalIdsChecked(
      this.store,
      dispensaryId,
      [result.item],
      () => this.store.menus.upsertItems(dispensaryId, [result.item], actor),
      asPatch,
    );
    await this.afterWrite();
    return toItemRead({ ...result.item, id: itemId });
  }

  /** Sets many stock levels in one transaction; one entry that matches no price entry rejects them all. */
  async setStock(dispensaryId: number, raw: unknown, actor?: Actor): Promise<{ updated: number }> {
    const result = validateStockUpdates(raw);
    if (!result.ok) {
      throw refusedWrite('The stock update was rejected', result.problems);
    }
    if (!(await this.store.dispensaries.get(dispensaryId))) throw notFound(dispensaryId);
    await resolveExternalStockRefs(this.store, dispensaryId, result.updates, result.external);
    try {
      const updated = await this.store.menus.setStock(dispensaryId, result.updates, actor);
      await this.afterWrite();
      return { updated };
    } catch (error) {
      if (!(error instanceof UnmatchedStockError)) throw error;
      const asSent = new Map(result.external.map((ref) => [ref.index, `ext:${ref.externalId}`]));
      const problems = error.unmatched.map((index) => {
        const update = result.updates[index]!;
        const item = asSent.get(index) ?? update.itemId;
        return {
          field: `[${index}]`,
          message: `matches no price entry (item ${item}, ${update.amount} ${update.unit}); nothing was applied`,
        };
      });
      throw new ServiceError(
        'unprocessable',
        `The inventory batch was rejected: ${describeProblems(problems)}`,
        problems,
      );
    }
  }
}

/** Rewrites any form's spelling of a field to the canonical one, so a patch overrides the right field. */
function canonicalNames(raw: Record<string, unknown>, aliases: FieldAliases): Record<string, unknown> {
  return Object.fromEntries(Object.entries(raw).map(([key, value]) => [aliases[key] ?? key, value]));
}

/** A price entry's problem names the CSV line of that entry, not the line where its item began. */
function atPriceLine(problem: FieldProblem, priceLines: readonly number[]): FieldProblem {
  const entry = /^line \d+, prices\[(\d+)\]/.exec(problem.field);
  const line = entry ? priceLines[Number(entry[1])] : undefined;
  return line === undefined
    ? problem
    : { ...problem, field: problem.field.replace(/^line \d+/, `line ${line}`) };
}

/** The CSV line a problem names (`line 7, price`), or undefined. */
export function lineOf(field: string): number | undefined {
  const match = /^line (\d+)/.exec(field);
  return match ? Number(match[1]) : undefined;
}

/** A bad cell is found both while reading the CSV and while validating the item: report it once. */
function unique(problems: FieldProblem[]): FieldProblem[] {
  return [...new Map(problems.map((problem) => [`${problem.field}\n${problem.message}`, problem])).values()];
}

/**
 * A patch of `image` alone sets the URL of the first primary image (or, null, removes it); a patch
 * of `images` alone takes `image` from them when it was their primary image.
 */
function withPrimaryImage(
  merged: Record<string, unknown>,
  current: MenuItem,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const primary = current.images.findIndex((image) => image.role === 'primary');
  if ('image' in patch && !('images' in patch) && primary >= 0) {
    const url = patch.image;
    const images = current.images.flatMap((image, index) =>
      index !== primary ? [image] : typeof url === 'string' ? [{ ...image, url }] : [],
    );
    return { ...merged, images };
  }
  if (
    'images' in patch &&
    !('image' in patch) &&
    primary >= 0 &&
    current.image === current.images[primary]!.url
  )
    return { ...merged, image: null };
  return merged;
}
