import { fromCents } from '../../domain/money.js';
import type { Special } from '../../domain/special-schema.js';
import { ServiceError } from '../../services/errors.js';
import { specialRecord, specialsScheduleRecord } from '../../services/records.js';
import { SpecialService, type SpecialsSchedule } from '../../services/specials.js';
import type { Store } from '../../store/store.js';
import { parseId, withService } from '../context.js';
import type { CommonOptions } from '../options.js';
import { emit, emitList, table } from '../output.js';

/** The special's fields as `special add` and `special change` take them (each optional for a change). */
export interface SpecialOptions {
  name?: string;
  description?: string;
  kind?: string;
  value?: string;
  itemIds?: string;
  externalIds?: string;
  brands?: string;
  productTypes?: string;
  tags?: string;
  menuType?: string;
  startsAt?: string;
  endsAt?: string;
  days?: string;
  dailyStart?: string;
  dailyEnd?: string;
}

const TARGETS = [
  ['itemIds', 'item_ids'],
  ['externalIds', 'external_ids'],
  ['brands', 'brands'],
  ['productTypes', 'product_types'],
  ['tags', 'tags'],
] as const;

const list = (text: string) =>
  text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** `none` lifts a schedule limit (null). */
const orNone = (text: string) => (text === 'none' ? null : text);

/**
 * The request body the options make: only the fields given, so that a change keeps the rest. The
 * service checks it as it checks the sync API's body (numbers stay text when they are not numbers,
 * so that the refusal names the field).
 */
export function specialBody(options: SpecialOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (options.name !== undefined) body.name = options.name;
  if (options.description !== undefined) body.description = options.description;
  if (options.kind !== undefined) body.kind = options.kind;
  if (options.value !== undefined) {
    const value = Number(options.value);
    body.value = options.value.trim() !== '' && Number.isFinite(value) ? value : options.value;
  }
  if (TARGETS.some(([option]) => options[option] !== undefined)) {
    const targets: Record<string, unknown> = {};
    for (const [option, field] of TARGETS) {
      const given = options[option];
      if (given === undefined) continue;
      targets[field] =
        option === 'itemIds' ? list(given).map((id) => (/^[0-9]+$/.test(id) ? Number(id) : id)) : list(given);
    }
    body.applies_to = targets;
  }
  if (options.menuType !== undefined) body.menu_type = options.menuType;
  if (options.startsAt !== undefined) body.starts_at = orNone(options.startsAt);
  if (options.endsAt !== undefined) body.ends_at = orNone(options.endsAt);
  if (options.days !== undefined) body.days_of_week = options.days === 'none' ? null : list(options.days);
  if (options.dailyStart !== undefined) body.daily_start = orNone(options.dailyStart);
  if (options.dailyEnd !== undefined) body.daily_end = orNone(options.dailyEnd);
  return body;
}

const dispensaryId = (id: string) => parseId(id, 'A dispensary id');
const specialId = (id: string) => parseId(id, 'A special id');

/** How a special reads in a table: its value with its kind. */
function dealOf(special: Special): string {
  const value = fromCents(special.valueHundredths);
  if (special.kind === 'percent_off') return `${value}% off`;
  return special.kind === 'amount_off' ? `${value} off` : `for ${value}`;
}

/** When it applies, in a few words. */
function whenOf(special: Special): string {
  const parts = [
    special.startsAt ? `from ${special.startsAt}` : '',
    special.endsAt ? `until ${special.endsAt}` : '',
    special.daysOfWeek ? special.daysOfWeek.map((day) => day.slice(0, 3)).join(',') : '',
    special.dailyStart ? `${special.dailyStart}-${special.dailyEnd}` : '',
  ].filter((part) => part !== '');
  return parts.length > 0 ? parts.join(' ') : 'always';
}

/** 1 to 31, as the sync API takes it. */
function daysAhead(text: string): number {
  if (!/^([1-9]|[12][0-9]|3[01])$/.test(text)) {
    throw new ServiceError(
      'invalid_request',
      `--days must be a whole number of days from 1 to 31, not "${text}".`,
    );
  }
  return Number(text);
}

/** The schedule as a person reads it: one row per span, in the store's local time. */
function scheduleTable(schedule: SpecialsSchedule, days: number): string {
  const zone = schedule.timezone ?? 'UTC';
  const local = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const rows = schedule.specials.flatMap(({ special, periods }) =>
    periods.map((period) => [
      special.id,
      special.name,
      local.format(period.start),
      period.end === null ? 'no end' : local.format(period.end),
    ]),
  );
  if (rows.length === 0) return `No special applies in the next ${days} days.`;
  return `${table(['ID', 'NAME', 'STARTS', 'ENDS'], rows)}\n(times in ${zone})`;
}

/** The special commands' work, each over the selected database, printing its result. */
export function specialActions(options: CommonOptions) {
  const run = (work: (specials: SpecialService) => Promise<void>) =>
    withService(options, (store: Store) => new SpecialService(store), work);
  return {
    list: (dispensary: string) =>
      run(async (specials) =>
        emitList(options, await specials.list(dispensaryId(dispensary)), {
          record: specialRecord,
          empty: `Dispensary ${dispensary} has no specials. Add one with: menu-api special add ${dispensary} --name NAME --kind percent_off --value 10 --brands BRAND`,
          headers: ['ID', 'NAME', 'DEAL', 'MENU', 'WHEN'],
          row: (special) => [special.id, special.name, dealOf(special), special.menuType, whenOf(special)],
        }),
      ),

    schedule: (dispensary: string, days: string) =>
      run(async (specials) => {
        const ahead = daysAhead(days);
        const schedule = await specials.schedule(dispensaryId(dispensary), ahead);
        emit(options, specialsScheduleRecord(schedule), scheduleTable(schedule, ahead));
      }),

    add: (dispensary: string, fields: SpecialOptions) =>
      run(async (specials) => {
        const special = await specials.create(dispensaryId(dispensary), specialBody(fields));
        emit(
          options,
          specialRecord(special),
          `Added special ${special.id} (${special.name}) to dispensary ${dispensary}.`,
        );
      }),

    change: (dispensary: string, id: string, fields: SpecialOptions) =>
      run(async (specials) => {
        const special = await specials.change(dispensaryId(dispensary), specialId(id), specialBody(fields));
        emit(options, specialRecord(special), `Changed special ${special.id} (${special.name}).`);
      }),

    remove: (dispensary: string, id: string) =>
      run(async (specials) => {
        await specials.remove(dispensaryId(dispensary), specialId(id));
        emit(options, { id: specialId(id), removed: true }, `Removed special ${id}.`);
      }),
  };
}
