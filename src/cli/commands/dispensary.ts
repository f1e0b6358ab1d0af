import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { toStoreInfoRecord } from '../../domain/store-info.js';
import { ServiceError } from '../../services/errors.js';
import { commonOptions, jsonOption, parseId, withServices } from '../context.js';
import { emit, table } from '../output.js';

export function dispensaryCommand(): Command {
  const command = new Command('dispensary').description('onboard dispensaries and manage their tokens');

  command
    .command('create')
    .description('create a dispensary and print its token (shown once: hand it to the dispensary)')
    .requiredOption('--name <name>', 'the dispensary name')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions<{ name: string }>(self);
      await withServices(options, async ({ dispensaries }) => {
        const created = await dispensaries.create(options.name);
        emit(
          options,
          { id: created.id, name: created.name, token: created.token },
          `Created dispensary ${created.id} (${created.name}).\nToken (shown once, store it now): ${created.token}`,
        );
      });
    });

  command
    .command('list')
    .description('list dispensaries with their item counts')
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions(self);
      await withServices(options, async ({ dispensaries }) => {
        const all = await dispensaries.list();
        const rows = all.map((d) => [d.id, d.name, d.itemCount, d.activeItemCount, d.updatedAt]);
        emit(
          options,
          all,
          all.length === 0
            ? 'No dispensaries yet. Create one with: menu-api dispensary create --name NAME'
            : table(['ID', 'NAME', 'ITEMS', 'ACTIVE', 'UPDATED'], rows),
        );
      });
    });

  command
    .command('rotate-token')
    .description('replace a dispensary token; the old one keeps working for the grace period')
    .argument('<id>', 'dispensary id')
    .option('--grace-seconds <seconds>', 'how long the old token keeps working (0: stop it at once)', '86400')
    .addOption(jsonOption())
    .action(async (id: string, _options, self: Command) => {
      const options = commonOptions<{ graceSeconds: string }>(self);
      await withServices(options, async ({ dispensaries }) => {
        const grace = /^\d+$/.test(options.graceSeconds) ? Number(options.graceSeconds) : Number.NaN;
        const issued = await dispensaries.rotateToken(parseId(id, 'The dispensary id'), undefined, grace);
        emit(options, issued, `New token for dispensary ${issued.id} (shown once): ${issued.token}`);
      });
    });

  command
    .command('remove')
    .description('delete a dispensary and its whole menu')
    .argument('<id>', 'dispensary id')
    .addOption(jsonOption())
    .action(async (id: string, _options, self: Command) => {
      const options = commonOptions(self);
      await withServices(options, async ({ dispensaries }) => {
        const dispensaryId = parseId(id, 'The dispensary id');
        await dispensaries.remove(dispensaryId);
        emit(options, { id: dispensaryId, removed: true }, `Removed dispensary ${dispensaryId}.`);
      });
    });

  command
    .command('show')
    .description('show a dispensary and its store information')
    .argument('<id>', 'dispensary id')
    .addOption(jsonOption())
    .action(async (id: string, _options, self: Command) => {
      const options = commonOptions(self);
      await withServices(options, async ({ dispensaries }) => {
        const dispensaryId = parseId(id, 'The dispensary id');
        const info = toStoreInfoRecord(await dispensaries.storeInfo(dispensaryId));
        const rows = Object.entries(info).map(([field, value]) => [
          field,
          value === null ? '-' : typeof value === 'object' ? JSON.stringify(value) : String(value),
        ]);
        emit(options, { id: dispensaryId, ...info }, table(['FIELD', 'VALUE'], rows));
      });
    });

  const update = command
    .command('update')
    .description('set store information (what GET /store answers); "null" clears a field')
    .argument('<id>', 'dispensary id')
    .option('--from-file <file>', 'a JSON object of store fields (hours included)')
    .addOption(jsonOption());
  for (const field of STORE_FIELDS)
    update.option(`--${field.replaceAll('_', '-')} <value>`, STORE_FIELD_HELP[field]);
  update.action(async (id: string, _options, self: Command) => {
    const options = commonOptions<Record<string, string | undefined>>(self);
    await withServices(options, async ({ dispensaries }) => {
      const dispensaryId = parseId(id, 'The dispensary id');
      const patch: Record<string, unknown> = options.fromFile ? await readJsonObject(options.fromFile) : {};
      for (const field of STORE_FIELDS) {
        const value = options[camel(field)];
        if (value === undefined) continue;
        patch[field] = value === 'null' ? null : field === 'hours' ? parseJson(value, '--hours') : value;
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
  });

  return command;
}

const STORE_FIELD_HELP = {
  name: 'the dispensary name',
  address: 'street address',
  city: 'city',
  state: 'state or province',
  postal_code: 'postal code',
  country: 'country',
  phone: 'phone number',
  email: 'contact e-mail',
  website: 'website URL',
  timezone: 'IANA time zone, for example America/Los_Angeles',
  license_number: 'state license number',
  currency: 'ISO 4217 currency of every price (default USD)',
  hours: 'JSON: {"monday": {"open": "09:00", "close": "21:00"}, "sunday": {"closed": true}, ...}',
  logo: 'logo URL',
} as const;
const STORE_FIELDS = Object.keys(STORE_FIELD_HELP) as (keyof typeof STORE_FIELD_HELP)[];

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
