import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { ServiceError } from '../../services/errors.js';
import { commonOptions, jsonOption, parseId, withServices } from '../context.js';
import { emit } from '../output.js';

export function inventoryCommand(): Command {
  const command = new Command('inventory').description('set stock levels, as the sync API does');

  command
    .command('set')
    .description(
      'set stock levels from a JSON file [{item_id, unit, amount, stock}], or one with --item/--unit/--amount/--stock',
    )
    .requiredOption('--dispensary <id>', 'dispensary id')
    .argument('[file]', 'JSON array of stock levels')
    .option('--item <id>', 'item id (instead of a file)')
    .option('--unit <unit>', 'gram, ounce or unit')
    .option('--amount <amount>', 'the price entry amount, for example 3.5')
    .option('--stock <stock>', 'the new stock level, or "null" when not tracked')
    .addOption(jsonOption())
    .action(async (file: string | undefined, _options, self: Command) => {
      const options = commonOptions<{
        dispensary: string;
        item?: string;
        unit?: string;
        amount?: string;
        stock?: string;
      }>(self);
      await withServices(options, async ({ menus }) => {
        const dispensaryId = parseId(options.dispensary, 'The dispensary id');
        let updates: unknown;
        if (file) {
          try {
            updates = JSON.parse(await readFile(file, 'utf8'));
          } catch (error) {
            throw new ServiceError(
              'invalid_request',
              `Cannot read ${file} as JSON: ${(error as Error).message}`,
            );
          }
        } else if (options.item && options.unit && options.amount && options.stock !== undefined) {
          updates = [
            {
              item_id: parseId(options.item, 'The item id'),
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
        emit(options, result, `Set ${result.updated} stock level(s) of dispensary ${dispensaryId}.`);
      });
    });

  return command;
}
