/**
 * Prints a store's menu as a table.
 *
 *   npx tsx examples/menu-table.ts [--base-url URL] [--username U] [--password P] [--token T] [--form A|B]
 *
 * The defaults are the demo server's (`npm start`).
 */
import { brandOf, type FormAItem, type FormBItem, pricesOf } from 'dispensary-menu-api/client';
import { COMMON_USAGE, exampleClient, exampleOptions, runExample } from './args.js';

const USAGE = `Prints a store's menu as a table.

Usage: npx tsx examples/menu-table.ts [options]

${COMMON_USAGE}`;

interface Row {
  id: number;
  name: string;
  brand: string;
  type: string;
  prices: { unit: string; amount: number; price: number; stock?: number | null }[];
}

const UNIT = { gram: 'g', ounce: 'oz', unit: 'ea' } as const;

function quantity(unit: string, amount: number): string {
  if (unit === 'ounce' && amount < 1) return `1/${Math.round(1 / amount)} oz`;
  return `${amount} ${UNIT[unit as keyof typeof UNIT] ?? unit}`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const options = exampleOptions(USAGE);
  const client = exampleClient(options);
  const [store, items] = await Promise.all([client.store(options.token), client.menu(options.token)]);
  const rows: Row[] =
    options.form === 'A'
      ? (items as FormAItem[]).map((item) => ({
          id: item.id,
          name: item.name,
          brand: item.brand_name,
          type: item.product_type,
          prices: item.product_prices,
        }))
      : (items as FormBItem[]).map((item) => ({
          id: item.id,
          name: item.name,
          brand: brandOf(item),
          type: item.type,
          prices: pricesOf(item),
        }));
  const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: store.currency });
  console.log(`${store.name}: ${rows.length} items (Form ${options.form}, prices in ${store.currency})\n`);
  console.log(
    table(
      ['ID', 'NAME', 'BRAND', 'TYPE', 'PRICES'],
      rows.map((row) => [
        String(row.id),
        row.name,
        row.brand,
        row.type,
        row.prices
          .map((price) => {
            const stock =
              price.stock === undefined ? '' : price.stock === null ? '' : ` (${price.stock} left)`;
            return `${quantity(price.unit, price.amount)} ${money.format(price.price)}${stock}`;
          })
          .join(', '),
      ]),
    ),
  );
}

runExample(main);
