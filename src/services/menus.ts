import { toCanonicalRecord } from '../domain/canonical.js';
import type { MenuItem, MenuItemInput } from '../domain/item.js';
import { type FieldProblem, validateItem, validateMenu } from '../domain/validate-item.js';
import type { FormBNames } from '../forms/form.js';
import { ALL_ITEM_FIELD_ALIASES, FORMS, findForm } from '../forms/index.js';
import type { Store } from '../store/store.js';
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

/** Reads, validates and replaces menus: the rules behind `menu import`, `menu export` and the sync API. */
export class MenuService {
  constructor(
    private readonly store: Store,
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
    const csv = readCsv(text, ALL_ITEM_FIELD_ALIASES);
    const problems = [...csv.problems];
    const items: MenuItemInput[] = [];
    for (const [index, raw] of csv.items.entries()) {
      const line = csv.lines[index]!;
      const result = validateItem(raw, ALL_ITEM_FIELD_ALIASES, `line ${line}, `);
      onProgress?.(index + 1, csv.items.length);
      if (!result.ok) {
        problems.push(...result.problems);
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
    if (problems.length > 0) throw rejected(problems);
    return items;
  }

  /** Validates a menu already parsed from JSON: an array of items in any form's names. */
  validate(raw: unknown): MenuItemInput[] {
    const result = validateMenu(raw, ALL_ITEM_FIELD_ALIASES, MAX_MENU_ITEMS);
    if (!result.ok) throw rejected(result.problems);
    return result.items;
  }

  /** Replaces the dispensary's whole menu in one transaction, or (dry run) only checks that it could. */
  async replace(dispensaryId: number, items: MenuItemInput[], dryRun = false): Promise<ImportReport> {
    if (!(await this.store.getDispensary(dispensaryId))) throw notFound(dispensaryId);
    if (!dryRun) {
      await this.store.replaceMenu(dispensaryId, items);
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
    if (!(await this.store.getDispensary(dispensaryId))) throw notFound(dispensaryId);
    return this.store.readMenu(dispensaryId);
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
    const requestForm = findForm(form);
    if (!requestForm) {
      const known = ['canonical', ...FORMS.map((candidate) => candidate.id)].join(', ');
      throw new ServiceError('invalid_request', `There is no form "${form}". Use one of: ${known}.`);
    }
    return `${JSON.stringify(requestForm.toWire(items, { formBNames }), null, 2)}\n`;
  }

  async setActive(dispensaryId: number, itemId: number, active: boolean): Promise<void> {
    if (!(await this.store.getDispensary(dispensaryId))) throw notFound(dispensaryId);
    if (!(await this.store.setItemActive(dispensaryId, itemId, active))) {
      throw new ServiceError(
        'not_found',
        `Dispensary ${dispensaryId} has no item ${itemId}. See its items with: menu-api menu export --dispensary ${dispensaryId}`,
      );
    }
    await this.afterWrite();
  }
}

function rejected(problems: FieldProblem[]): ServiceError {
  return new ServiceError(
    'invalid_request',
    `The menu was rejected (${problems.length} problem${problems.length === 1 ? '' : 's'}), nothing was changed: ${describeProblems(problems)}`,
    problems,
  );
}
