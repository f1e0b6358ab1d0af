import { type TSchema, Type } from 'typebox';
import { type CanonicalRecord, fromCanonicalRecord } from '../../domain/canonical.js';
import type { MenuItem } from '../../domain/item.js';
import { ServiceError } from '../../services/errors.js';
import { DEFAULT_CHANGES_LIMIT, encodeCursor, MAX_CHANGES_LIMIT } from '../../services/menu-feed.js';
import type { MenuChange } from '../../store/store.js';
import type { FormContext, RequestForm } from '../form.js';

export const CursorSchema = Type.String({
  pattern: '^[0-9]{16}$',
  description: 'An opaque, increasing cursor of the live feed (16 digits: cursors also sort as strings).',
  examples: ['0000000000001234'],
});

/** A change in a form's shape: `item` is exactly what that form's /menu lists for the item. */
export function changeSchema(form: RequestForm, itemSchema: TSchema): TSchema {
  return Type.Object(
    {
      cursor: CursorSchema,
      at: Type.String({ format: 'date-time', description: 'When the change was recorded (RFC 3339, UTC).' }),
      type: Type.Union(
        [Type.Literal('item.upserted'), Type.Literal('item.removed'), Type.Literal('store.updated')],
        {
          description:
            'item.upserted: the item is now in the active menu, new or changed; item.removed: it left the active menu; store.updated: store information changed (read GET/POST /store).',
        },
      ),
      item_id: Type.Union([Type.Integer(), Type.Null()], { description: 'Null on store.updated.' }),
      item: Type.Union([itemSchema, Type.Null()], {
        description: 'On item.upserted, the whole item as /menu lists it in this form; else null.',
      }),
      reason: Type.Union([Type.Literal('deleted'), Type.Literal('deactivated'), Type.Null()], {
        description: 'On item.removed, why; else null.',
      }),
    },
    { title: `Form${form.id.toUpperCase()}Change`, additionalProperties: false },
  );
}

export function changesPageSchema(change: TSchema, itemSchema: TSchema): TSchema {
  const item = (itemSchema as { examples?: unknown[] }).examples?.[0];
  const example = {
    changes: [
      ...(item && typeof item === 'object'
        ? [
            {
              cursor: '0000000000001235',
              at: '2026-11-25T12:03:10.512Z',
              type: 'item.upserted',
              item_id: (item as { id?: number }).id ?? 1,
              item,
              reason: null,
            },
          ]
        : []),
      {
        cursor: '0000000000001236',
        at: '2026-11-25T12:04:45.020Z',
        type: 'item.removed',
        item_id: 7,
        item: null,
        reason: 'deactivated',
      },
      {
        cursor: '0000000000001240',
        at: '2026-11-25T12:05:00.000Z',
        type: 'store.updated',
        item_id: null,
        item: null,
        reason: null,
      },
    ],
    next_cursor: '0000000000001240',
    has_more: false,
  };
  return Type.Object(
    {
      changes: Type.Array(change, { description: 'Oldest first.' }),
      next_cursor: {
        ...CursorSchema,
        description:
          'Send as `after` to continue. When has_more is false, the feed’s head: follow from there.',
      },
      has_more: Type.Boolean({
        description: 'More changes are waiting: ask again at once with next_cursor.',
      }),
    },
    // Named after its change (FormAChange: FormAChangePage), for the document's named schemas.
    {
      additionalProperties: false,
      title: `${(change as { title?: string }).title}Page`,
      examples: [example],
    },
  );
}

export interface WireChange {
  cursor: string;
  at: string;
  type: MenuChange['type'];
  item_id: number | null;
  item: unknown;
  reason: MenuChange['reason'];
}

/**
 * Each change's item read from its canonical JSON once, for every form that maps it: at a special's
 * boundary Form A and Form B each parsed the 1,000 items' JSON (bench/PROFILE.md, round fifteen).
 */
const changedItems = new WeakMap<MenuChange, MenuItem>();
function changedItem(change: MenuChange, json: string): MenuItem {
  let item = changedItems.get(change);
  if (item === undefined) {
    item = fromCanonicalRecord(JSON.parse(json) as CanonicalRecord);
    changedItems.set(change, item);
  }
  return item;
}

/**
 * Maps stored changes to one form's shape, each change once: every stream and page of the form shares
 * the mapping of a change (the hub hands the same objects to every subscriber). `itemOf`: how a
 * change's item is spelled, when not by the form's toWire (Form v1 prices it under the specials now).
 */
export function changeMapper(
  form: RequestForm,
  context: Pick<FormContext, 'formBNames'>,
  itemOf: (item: MenuItem) => unknown = (item) => form.toWire([item], context)[0] ?? null,
) {
  const wire = new WeakMap<MenuChange, WireChange>();
  const frames = new WeakMap<MenuChange, string>();
  const wireOf = (change: MenuChange): WireChange => ({
    cursor: encodeCursor(change.seq),
    at: change.at,
    type: change.type,
    item_id: change.itemId,
    item: change.item === null ? null : itemOf(changedItem(change, change.item)),
    reason: change.reason,
  });
  const toWire = (change: MenuChange): WireChange => {
    let mapped = wire.get(change);
    if (!mapped) {
      mapped = wireOf(change);
      wire.set(change, mapped);
    }
    return mapped;
  };
  /**
   * The server-sent event of a change. The change in the form's shape is made for its text and not
   * kept: kept, each form's copy of a boundary's 1,000 items lived as long as the batch, copied by
   * every young-generation collection of the batch's turn (bench/PROFILE.md, round thirty-one).
   */
  const frame = (change: MenuChange): string => {
    let text = frames.get(change);
    if (text === undefined) {
      text = `id: ${encodeCursor(change.seq)}\nevent: ${change.type}\ndata: ${JSON.stringify(wire.get(change) ?? wireOf(change))}\n\n`;
      frames.set(change, text);
    }
    return text;
  };
  return { toWire, frame, cursor: encodeCursor };
}

/**
 * How a form spells a dispensary's changes now: changeMapper's mapping, or, for a form whose item depends
 * on the dispensary now (Form v1's effective prices), a mapping with that spelling. A form's /changes and
 * the webhooks that chose the form share it: a delivery carries a change exactly as that /changes lists it.
 */
export function dispensaryChanges(form: RequestForm, context: Pick<FormContext, 'menus' | 'formBNames'>) {
  const mapper = changeMapper(form, context);
  const changeItem = form.changeItem?.(context.menus);
  return async (dispensaryId: number) =>
    changeItem ? changeMapper(form, context, await changeItem(dispensaryId)) : mapper;
}

/**
 * A webhook delivery's change, as the /changes of the form the webhook chose (by its id) lists it.
 * An unknown form (none is stored: the service checks) fails the attempt, which is retried.
 */
export function webhookChanges(
  forms: readonly RequestForm[],
  context: Pick<FormContext, 'menus' | 'formBNames'>,
) {
  const byForm = new Map(forms.map((form) => [form.id, dispensaryChanges(form, context)]));
  return async (change: MenuChange, formId: string): Promise<WireChange> => {
    const changes = byForm.get(formId);
    if (!changes) throw new Error(`there is no request form ${formId}`);
    return (await changes(change.dispensaryId)).toWire(change);
  };
}

/** `limit` from a JSON body (a number) or a query string (text): 1 to 1,000, default 100. */
export function parseLimit(value: unknown): number {
  if (value === undefined) return DEFAULT_CHANGES_LIMIT;
  const limit = typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_CHANGES_LIMIT) {
    throw new ServiceError(
      'invalid_request',
      `limit must be a whole number from 1 to ${MAX_CHANGES_LIMIT} (default ${DEFAULT_CHANGES_LIMIT}).`,
      [{ field: 'limit', message: `must be a whole number from 1 to ${MAX_CHANGES_LIMIT}` }],
    );
  }
  return limit;
}
