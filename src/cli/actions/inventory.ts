import { readFile } from 'node:fs/promises';
import { refText } from '../../domain/item-ref.js';
import { MENU_FORMS } from '../../forms/index.js';
import { ServiceError } from '../../services/errors.js';
import { MenuService } from '../../services/menus.js';
import type { Store } from '../../store/store.js';
import { parseId, parseItem, withService } from '../context.js';
import type { CommonOptions } from '../options.js';
import { emit } from '../output.js';

const menuService = (store: Store) => new MenuService(store, MENU_FORMS);

export async function set(
  file: string | undefined,
  options: CommonOptions & {
    dispensary: string;
    item?: string;
    unit?: string;
    amount?: string;
    stock?: string;
  },
): Promise<void> {
  await withService(options, menuService, async (menus) => {
    const dispensaryId = parseId(options.dispensary, 'The dispensary id');
    let updates: unknown;
    if (file) {
      try {
        updates = JSON.parse(await readFile(file, 'utf8'));
      } catch (error) {
        throw new ServiceError('invalid_request', `Cannot read ${file} as JSON: ${(error as Error).message}`);
      }
    } else if (options.item && options.unit && options.amount && options.stock !== undefined) {
      updates = [
        {
          item_id: itemIdText(options.item),
          unit: options.unit,
          amount: Number(options.amount),
          stock: options.stock === 'null' ? null : Number(options.stock),
        },
      ];
    } else {
      throw new ServiceError(
        'invalid_request',
        'Give a JSON file, or all of --item, --unit, --amount and --stock.',
      );
    }
    const result = await menus.setStock(dispensaryId, updates);
    const levels = result.updated === 1 ? 'stock level' : 'stock levels';
    emit(options, result, `Set ${result.updated} ${levels} of dispensary ${dispensaryId}.`);
  });
}

/** --item as a stock update's item_id: the id, or `ext:` and the external_id as sent. */
function itemIdText(value: string): number | string {
  const item = parseItem(value);
  return 'id' in item ? item.id : refText(item);
}
