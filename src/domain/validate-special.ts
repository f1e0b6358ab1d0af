import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { toCents } from './money.js';
import {
  SPECIAL_FIELDS,
  type SpecialFieldName,
  type SpecialFields,
  SpecialInputSchema,
  SpecialPatchSchema,
  type SpecialTargets,
  type SpecialTargetsRecord,
} from './special-schema.js';
import type { Weekday } from './store-info.js';
import type { FieldProblem } from './validate-item.js';

export type SpecialResult = { ok: true; fields: SpecialFields } | { ok: false; problems: FieldProblem[] };

const TARGET_LISTS = ['item_ids', 'external_ids', 'brands', 'product_types', 'tags'] as const;
const FIELD_NAMES = Object.keys(SPECIAL_FIELDS).join(', ');

const DEFAULTS = {
  description: '',
  menu_type: 'both',
  starts_at: null,
  ends_at: null,
  days_of_week: null,
  daily_start: null,
  daily_end: null,
} as const;

/** `/applies_to/item_ids/0` as `applies_to.item_ids[0]`. */
function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : `${index === 0 ? '' : '.'}${part}`))
    .join('');
}

/** The schema's verdict, one problem per field path, worded for someone fixing the request. */
function schemaProblems(schema: TSchema, raw: unknown): FieldProblem[] {
  const problems = new Map<string, string>();
  for (const error of Value.Errors(schema, raw)) {
    // Each extra property also fails `additionalProperties: false` as a boolean schema: said once, below.
    if (error.keyword === 'boolean') continue;
    if (error.keyword === 'additionalProperties') {
      const extra = (error.params as { additionalProperties: string[] }).additionalProperties;
      const parent = pathOf(error.instancePath);
      for (const name of extra) {
        problems.set(
          parent === '' ? name : `${parent}.${name}`,
          parent === ''
            ? `is not a field of a special: remove it (the fields are ${FIELD_NAMES})`
            : `is not a target: remove it (the targets are ${TARGET_LISTS.join(', ')})`,
        );
      }
      continue;
    }
    if (error.keyword === 'required') {
      for (const name of (error.params as { requiredProperties: string[] }).requiredProperties) {
        problems.set(name, 'is required');
      }
      continue;
    }
    const field = pathOf(error.instancePath) || 'special';
    if (problems.has(field)) continue;
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
    problems.set(
      field,
      allowed ? `must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}` : error.message,
    );
  }
  return [...problems].map(([field, message]) => ({ field, message }));
}

const targetsOf = (record: SpecialTargetsRecord): SpecialTargets => ({
  itemIds: [...new Set(record.item_ids ?? [])],
  externalIds: [...new Set(record.external_ids ?? [])],
  brands: [...new Set(record.brands ?? [])],
  productTypes: [...new Set(record.product_types ?? [])],
  tags: [...new Set(record.tags ?? [])],
});

/** A special's fields in the wire's spelling (every target list present), as answers show them. */
export function specialRecordOf(fields: SpecialFields) {
  const { appliesTo } = fields;
  return {
    name: fields.name,
    description: fields.description,
    kind: fields.kind,
    value: fields.valueHundredths / 100,
    applies_to: {
      item_ids: appliesTo.itemIds,
      external_ids: appliesTo.externalIds,
      brands: appliesTo.brands,
      product_types: appliesTo.productTypes,
      tags: appliesTo.tags,
    },
    menu_type: fields.menuType,
    starts_at: fields.startsAt,
    ends_at: fields.endsAt,
    days_of_week: fields.daysOfWeek,
    daily_start: fields.dailyStart,
    daily_end: fields.dailyEnd,
  } satisfies Record<SpecialFieldName, unknown>;
}

/**
 * Checks a new special (`current` undefined) or a change of one (the fields it sends, over
 * `current`): first against the schema, then the rules between fields. Every problem is named by its
 * field path, with what to do.
 */
export function validateSpecial(raw: unknown, current?: SpecialFields): SpecialResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, problems: [{ field: 'special', message: 'must be a JSON object' }] };
  }
  const shape = schemaProblems(current ? SpecialPatchSchema : SpecialInputSchema, raw);
  if (shape.length > 0) return { ok: false, problems: shape };
  const merged = {
    ...DEFAULTS,
    ...(current && specialRecordOf(current)),
    ...raw,
  } as Record<SpecialFieldName, unknown> & typeof DEFAULTS;
  const problems: FieldProblem[] = [];
  const value = merged.value as number;
  const hundredths = toCents(value);
  if (hundredths === null) problems.push({ field: 'value', message: 'must have at most two decimals' });
  if (merged.kind === 'percent_off' && (value <= 0 || value > 100)) {
    problems.push({ field: 'value', message: 'must be a percent above 0 and at most 100 for percent_off' });
  }
  if (merged.kind === 'amount_off' && value <= 0) {
    problems.push({ field: 'value', message: 'must be an amount above 0 for amount_off' });
  }
  const targets = targetsOf(merged.applies_to as SpecialTargetsRecord);
  if (Object.values(targets).every((list) => list.length === 0)) {
    problems.push({
      field: 'applies_to',
      message: `names no items: give at least one entry in one of ${TARGET_LISTS.join(', ')}`,
    });
  }
  const startsAt = merged.starts_at === null ? null : new Date(merged.starts_at as string).toISOString();
  const endsAt = merged.ends_at === null ? null : new Date(merged.ends_at as string).toISOString();
  if (startsAt !== null && endsAt !== null && endsAt <= startsAt) {
    problems.push({
      field: 'ends_at',
      message: `must be after starts_at (${startsAt}): move ends_at later or starts_at earlier`,
    });
  }
  const dailyStart = merged.daily_start as string | null;
  const dailyEnd = merged.daily_end as string | null;
  if ((dailyStart === null) !== (dailyEnd === null)) {
    problems.push({
      field: dailyStart === null ? 'daily_start' : 'daily_end',
      message:
        'is needed with the other end of the daily window: give both daily_start and daily_end, or neither',
    });
  } else if (dailyStart !== null && dailyStart === dailyEnd) {
    problems.push({
      field: 'daily_end',
      message: 'must differ from daily_start: for all day, leave both null',
    });
  }
  if ((merged.name as string).trim() === '') {
    problems.push({ field: 'name', message: 'must not be blank: give the special a name people will read' });
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    fields: {
      name: (merged.name as string).trim(),
      description: (merged.description as string).trim(),
      kind: merged.kind as SpecialFields['kind'],
      valueHundredths: hundredths!,
      appliesTo: targets,
      menuType: merged.menu_type as SpecialFields['menuType'],
      startsAt,
      endsAt,
      daysOfWeek: merged.days_of_week as Weekday[] | null,
      dailyStart,
      dailyEnd,
    },
  };
}
