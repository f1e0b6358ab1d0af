/**
 * Polls a store's inventory with `since` and prints what changed: cheap, because each poll asks only
 * for the price entries changed after the newest change already seen.
 *
 *   npx tsx examples/poll-inventory.ts [--iterations N] [--interval-ms MS] [--base-url URL] [--username U]
 *     [--password P] [--token T] [--form A|B]
 */
import type { InventoryEntry } from 'dispensary-menu-api/client';
import { COMMON_USAGE, exampleClient, exampleOptions, runExample } from './args.js';

const USAGE = `Polls a store's inventory with since and prints what changed.

Usage: npx tsx examples/poll-inventory.ts [options]

  --iterations N    how many polls (default: 10)
  --interval-ms MS  time between polls (default: 5000)
${COMMON_USAGE}`;

const key = (entry: InventoryEntry) => `${entry.item_id} ${entry.unit} ${entry.amount}`;
const stockText = (stock: number | null) => (stock === null ? 'not tracked' : String(stock));

async function main(): Promise<void> {
  const options = exampleOptions(USAGE, {
    iterations: { type: 'string', default: '10' },
    'interval-ms': { type: 'string', default: '5000' },
  });
  const iterations = Number(options.values.iterations);
  const intervalMs = Number(options.values['interval-ms']);
  if (!Number.isInteger(iterations) || iterations < 1)
    throw new Error('--iterations must be a whole number ≥ 1');
  const client = exampleClient(options);

  const known = new Map<string, InventoryEntry>();
  let since: string | undefined;
  for (let poll = 1; poll <= iterations; poll += 1) {
    const first = since === undefined;
    const entries = await client.inventory(options.token, first ? {} : { since });
    if (first) {
      console.log(`poll ${poll}: ${entries.length} price entries in stock tracking`);
    } else if (entries.length === 0) {
      console.log(`poll ${poll}: no changes`);
    }
    for (const entry of entries) {
      const before = known.get(key(entry));
      if (!first) {
        const was = before ? stockText(before.stock) : 'new';
        console.log(
          `poll ${poll}: item ${entry.item_id} ${entry.amount} ${entry.unit}: stock ${was} -> ${stockText(entry.stock)}${entry.in_stock ? '' : ' (out of stock)'}`,
        );
      }
      known.set(key(entry), entry);
      // The newest change seen: the next poll asks only for what changed after it.
      if (since === undefined || entry.updated_at > since) since = entry.updated_at;
    }
    since ??= new Date(0).toISOString();
    if (poll < iterations) await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

runExample(main);
