import { Command } from 'commander';
import { commonOptions, jsonOption } from '../options.js';

export function inventoryCommand(): Command {
  const command = new Command('inventory').description('set stock levels, as the sync API does');

  command
    .command('set')
    .description(
      'set stock levels from a JSON file [{item_id, unit, amount, stock}] (item_id may be "ext:" and an external_id), or one with --item/--unit/--amount/--stock',
    )
    .requiredOption('--dispensary <id>', 'dispensary id')
    .argument('[file]', 'JSON array of stock levels')
    .option('--item <id>', 'item id, or ext: and its external_id (instead of a file)')
    .option('--unit <unit>', 'gram, ounce or unit')
    .option('--amount <amount>', 'the price entry amount, for example 3.5')
    .option('--stock <stock>', 'the new stock level, or "null" when not tracked')
    .addOption(jsonOption())
    .action(async (file: string | undefined, _options, self: Command) => {
      const { set } = await import('../actions/inventory.js');
      await set(
        file,
        commonOptions<{ dispensary: string; item?: string; unit?: string; amount?: string; stock?: string }>(
          self,
        ),
      );
    });

  return command;
}
