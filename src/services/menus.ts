import type { FormBNames } from '../config.js';
import { type CanonicalRecord, toCanonicalRecord } from '../domain/canonical.js';
import type { MenuItem, MenuItemInput } from '../domain/item.js';
import { type FieldAliases, type FieldProblem, validateItem, validateMenu } from '../domain/validate-item.js';
import { validateStockUpdates } from '../domain/validate-stock.js';
import { type Actor, type Store, UnmatchedStockError, type UpsertResult } from '../store/store.js';
import { type AfterWrite, notFound } from './dispensaries.js';
import { describeProblems, ServiceError } from './errors.js';
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
    if (format === 'json') {
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (error) {
        throw new ServiceError('invalid_request', `The file is not valid JSON: ${(error as Error).message}`);
      }
      const items = this.validate(raw);
      onProgress?.(items.length, items.length);
      return items;
    }
    const aliases = this.forms.aliases;
    const csv = readCsv(text, aliases);
    const problems = [...csv.problems];
    const items: MenuItemInput[] = [];
    for (const [index, raw] of csv.items.entries()) {
      const line = csv.lines[index]!;
      const result = validateItem(raw, aliases, `line ${line}, `);
      onProgress?.(index + 1, csv.items.length);
      if (!result.ok) {
        problems.push(...result.problems.map((problem) => atPriceLine(problem, csv.priceLines[index]!)));
        continue;
      }
      items.push(result.item);
    }
    if (items.length > MAX_MENU_ITEMS) {
      problems.push({
        field: 'csv',
        message: `has ${items.length} items; at most ${MAX_MENU_ITEMS} allowed`,
      });
    }
    if (problems.length > 0) throw rejected(unique(problems));
    return items;
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

  async setActive(dispensaryId: number, itemId: number, active: boolean, actor?: Actor): Promise<void> {
    if (!(await this.store.dispensaries.get(dispensaryId))) throw notFound(dispensaryId);
    if (!(await this.store.menus.setItemActive(dispensaryId, itemId, active, actor)))
      throw noItem(dispensaryId, itemId);
    await this.afterWrite();
  }

  /** Creates or replaces the given items by id (partial sync); items without an id are created. */
  async upsert(dispensaryId: number, raw: unknown, actor?: Actor): Promise<UpsertResult> {
    const items = this.validate(raw);
    if (!(await this.store.dispensaries.get(dispensaryId))) throw notFound(dispensaryId);
    const result = await this.store.menus.upsertItems(dispensaryId, items, actor);
    await this.afterWrite();
    return result;
  }

  async deleteItem(dispensaryId: number, itemId: number, actor?: Actor): Promise<void> {
    if (!(await this.store.dispensaries.get(dispensaryId))) throw notFound(dispensaryId);
    if (!(await this.store.menus.deleteItem(dispensaryId, itemId, actor))) throw noItem(dispensaryId, itemId);
    await this.afterWrite();
  }

  /**
   * Changes some fields of one item (`{"active": false}`, a new price list...): the fields given are
   * laid over the item as it is, and the result passes the same validation as an import.
   */
  async patchItem(
    dispensaryId: number,
    itemId: number,
    raw: unknown,
    actor?: Actor,
  ): Promise<CanonicalRecord> {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new ServiceError(
        'invalid_request',
        'The body must be a JSON object with the item fields to change.',
      );
    }
    if ('id' in raw && (raw as { id: unknown }).id !== itemId) {
      throw new ServiceError('invalid_request', 'The id of an item cannot change; leave it out of the body.');
    }
    const current = (await this.items(dispensaryId)).find((item) => item.id === itemId);
    if (!current) throw noItem(dispensaryId, itemId);
    const aliases = this.forms.aliases;
    const merged = {
      ...toCanonicalRecord(current),
      ...canonicalNames(raw as Record<string, unknown>, aliases),
    };
    const result = validateItem(merged, aliases);
    if (!result.ok) throw rejected(result.problems);
    await this.store.menus.upsertItems(dispensaryId, [result.item], actor);
    await this.afterWrite();
    return toCanonicalRecord({ ...result.item, id: itemId });
  }

  /** Sets many stock levels in one transaction; one entry that matches no price entry rejects them all. */
  async setStock(dispensaryId: number, raw: unknown, actor?: Actor): Promise<{ updated: number }> {
    const result = validateStockUpdates(raw);
    if (!result.ok) {
      const count = result.problems.length;
      throw new ServiceError(
        'invalid_request',
        `The stock update was rejected (${count} ${count === 1 ? 'problem' : 'problems'}), nothing was changed: ${describeProblems(result.problems)}`,
        result.problems,
      );
    }
    if (!(await this.store.dispensaries.get(dispensaryId))) throw notFound(dispensaryId);
    try {
      const updated = await this.store.menus.setStock(dispensaryId, result.updates, actor);
      await this.afterWrite();
      return { updated };
    } catch (error) {
      if (!(error instanceof UnmatchedStockError)) throw error;
      const problems = error.unmatched.map((index) => {
        const update = result.updates[index]!;
        return {
          field: `[${index}]`,
          message: `matches no price entry (item ${update.itemId}, ${update.amount} ${update.unit}); nothing was applied`,
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

function noItem(dispensaryId: number, itemId: number): ServiceError {
  return new ServiceError(
    'not_found',
    `Dispensary ${dispensaryId} has no item ${itemId}. See its items with: npx menu-api menu export --dispensary ${dispensaryId}`,
  );
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

/** A bad cell is found both while reading the CSV and while validating the item: report it once. */
function unique(problems: FieldProblem[]): FieldProblem[] {
  return [...new Map(problems.map((problem) => [`${problem.field}\n${problem.message}`, problem])).values()];
}

function rejected(problems: FieldProblem[]): ServiceError {
  return new ServiceError(
    'invalid_request',
    `The menu was rejected (${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}), nothing was changed: ${describeProblems(problems)}`,
    problems,
  );
}
