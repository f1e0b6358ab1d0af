import { useEffect, useRef, useState } from 'preact/hooks';
import type { CanonicalItem, UpsertResult } from '../../../src/client/types.js';
import {
  CANNABINOID_CODES,
  type PotencyBasis,
  TERPENE_CODES,
  UNITS_OF_BASIS,
} from '../../../src/domain/lab-vocabulary.js';
import { ApiError, api, type JsonSchema, messageOf, schemaOf } from '../api.js';
import { Alert, Confirm, ErrorText } from '../components.js';
import { DocumentEditor } from './item-editor/document.js';
import { idOf, labelOf, messagesOf } from './item-editor/names.js';
import { type Price, PriceEntries } from './item-editor/prices.js';
import { RowsEditor } from './item-editor/rows.js';
import { isList, isObject, ValueInput } from './item-editor/value-input.js';

type Draft = Record<string, unknown> & { prices: Price[] };
type Row = Record<string, unknown>;

/**
 * The item's fields come from the OpenAPI document's ItemInput schema (itself made from the domain's
 * one item schema): a request form's other spelling of a field, and the id, are left out. Each is
 * edited as its schema's shape says: a value, a record that may be null (batch, strain, serving), or
 * a list of records (analytes, images); the price entries have their own group.
 */
function editableFields(schema: JsonSchema): [string, JsonSchema][] {
  return Object.entries(schema.properties ?? {}).filter(
    ([name, field]) =>
      name !== 'id' && name !== 'prices' && !field.description?.startsWith("A request form's spelling"),
  );
}

/** A record or null (`anyOf` of the record and null): the record's schema. */
const recordOf = (field: JsonSchema) => field.anyOf?.find(isObject) ?? (isObject(field) ? field : undefined);
/** A list of records: the record's schema. */
const rowsOf = (field: JsonSchema) =>
  isList(field) && field.items && isObject(field.items) ? field.items : undefined;

/** What the groups are called, where the field's own name says less. */
const TITLES: Readonly<Record<string, [title: string, singular?: string]>> = {
  cannabinoids: ['Cannabinoids', 'Cannabinoid'],
  terpenes: ['Terpenes', 'Terpene'],
  images: ['Images', 'Image'],
  batch: ['Batch and certificate of analysis'],
};
const VOCABULARIES: Readonly<Record<string, readonly string[]>> = {
  cannabinoids: CANNABINOID_CODES,
  terpenes: TERPENE_CODES,
};

/** A basis chosen that the unit does not fit takes the basis's first unit (mg for an amount per serving). */
function fitUnit(row: Row, changed: string): Row {
  const units: readonly string[] | undefined = UNITS_OF_BASIS[row.basis as PotencyBasis];
  if (changed !== 'basis' || !units || units.includes(String(row.unit))) return row;
  return { ...row, unit: units[0] };
}

/** The fields whose value the draft changed: an item patch sends only those (image and images follow each other). */
function changedFields(draft: Draft, item: CanonicalItem): Record<string, unknown> {
  const before = item as unknown as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(draft).filter(
      ([name, value]) => name !== 'id' && JSON.stringify(value) !== JSON.stringify(before[name]),
    ),
  );
}

export function ItemEditor(props: {
  dispensaryId: number;
  item: CanonicalItem | undefined;
  onClose: () => void;
  /** null: the item was deleted. */
  onSaved: (item: CanonicalItem | null, message: string) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [schema, setSchema] = useState<JsonSchema>();
  const [draft, setDraft] = useState<Draft>(() =>
    props.item
      ? ({ ...props.item, prices: props.item.prices.map((price) => ({ ...price })) } as Draft)
      : { name: '', product_type: 'Flower', active: true, prices: [] },
  );
  const [failure, setFailure] = useState<ApiError>();
  const [error, setError] = useState('');
  const [deleting, setDeleting] = useState(false);
  useEffect(() => {
    dialog.current?.showModal();
    schemaOf('ItemInput').then(setSchema, (problem: unknown) => setError(messageOf(problem)));
  }, []);
  const set = (name: string, value: unknown) => setDraft((before) => ({ ...before, [name]: value }));
  const messageAt = messagesOf(failure);
  const title = props.item ? `Edit ${props.item.name}` : 'Add an item';

  const save = async () => {
    setFailure(undefined);
    setError('');
    const base = `/dispensaries/${props.dispensaryId}/menu/items`;
    try {
      if (props.item) {
        const changed = changedFields(draft, props.item);
        if (Object.keys(changed).length === 0) {
          props.onSaved(props.item, `Nothing changed in ${props.item.name}.`);
          return;
        }
        const saved = await api<CanonicalItem>('PATCH', `${base}/${props.item.id}`, changed);
        props.onSaved(saved, `Saved ${saved.name}.`);
      } else {
        const result = await api<UpsertResult>('PATCH', base, [draft]);
        const id = result.created[0]!;
        const items = await api<CanonicalItem[]>('GET', `/dispensaries/${props.dispensaryId}/menu`);
        const saved = items.find((item) => item.id === id);
        props.onSaved(saved ?? null, `Added ${String(draft.name)}.`);
      }
    } catch (problem) {
      if (problem instanceof ApiError) setFailure(problem);
      setError(messageOf(problem));
    }
  };

  const fields = schema ? editableFields(schema) : [];
  const plain = fields.filter(([, field]) => !recordOf(field) && !rowsOf(field));
  const grouped = fields.filter(([, field]) => recordOf(field) || rowsOf(field));
  return (
    <dialog ref={dialog} aria-labelledby="editor-title" class="editor" onCancel={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <h2 id="editor-title">{title}</h2>
        {!schema && !error && <p>Loading the fields…</p>}
        <div class="fields">
          {plain.map(([name, field]) => {
            const id = `field-${name}`;
            const message = messageAt(name);
            return (
              <div class="field" key={name}>
                <label for={id}>
                  {labelOf(name)}
                  {isList(field) ? ' (separate with ;)' : ''}
                </label>
                <ValueInput
                  id={id}
                  schema={field}
                  value={draft[name]}
                  invalidBy={message ? `${id}-error` : undefined}
                  onChange={(value) => set(name, value)}
                />
                <ErrorText id={`${id}-error`} message={message} />
              </div>
            );
          })}
        </div>
        {grouped.map(([name, field]) => {
          const [groupTitle, singular] = TITLES[name] ?? [labelOf(name)];
          const record = recordOf(field);
          if (record)
            return (
              <DocumentEditor
                key={name}
                path={name}
                title={groupTitle}
                schema={record}
                value={draft[name] as Row | null}
                onChange={(value) => set(name, value)}
                messageAt={messageAt}
              />
            );
          const words = VOCABULARIES[name];
          return (
            <RowsEditor
              key={name}
              name={name}
              title={groupTitle}
              singular={singular ?? labelOf(name)}
              schema={rowsOf(field)!}
              rows={(draft[name] as Row[] | undefined) ?? []}
              onChange={(rows) => set(name, rows)}
              messageAt={messageAt}
              {...(words ? { vocabulary: { column: 'code', words }, adjust: fitUnit } : {})}
            />
          );
        })}
        {schema?.properties?.prices?.items && (
          <PriceEntries
            schema={schema.properties.prices.items}
            prices={draft.prices}
            onChange={(prices) => set('prices', prices)}
            messageAt={messageAt}
          />
        )}
        <ErrorText id={`${idOf('prices')}-error`} message={messageAt('prices')} />
        <Alert message={error} />
        <div class="row">
          <button type="submit" disabled={!schema}>
            Save item
          </button>
          {props.item && (
            <button type="button" class="danger" onClick={() => setDeleting(true)}>
              Delete item
            </button>
          )}
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
      {deleting && props.item && (
        <Confirm
          title={`Delete ${props.item.name}?`}
          action="Delete"
          onCancel={() => setDeleting(false)}
          onConfirm={async () => {
            await api('DELETE', `/dispensaries/${props.dispensaryId}/menu/items/${props.item!.id}`);
            props.onSaved(null, `Deleted ${props.item!.name}.`);
          }}
        />
      )}
    </dialog>
  );
}
