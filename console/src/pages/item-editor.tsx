import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CanonicalItem, UpsertResult } from '../../../src/client/types.js';
import { ApiError, api, type JsonSchema, messageOf, schemaOf } from '../api.js';
import { Alert, Confirm, ErrorText } from '../components.js';

type Price = CanonicalItem['prices'][number];
type Draft = Record<string, unknown> & { prices: Price[] };

/**
 * A price entry as it is written: the menu read adds the price now and its special, which are the
 * server's to work out and no field of an item.
 */
function writtenEntry(price: Price): Price {
  const {
    effective_price: _now,
    special: _special,
    ...written
  } = price as Price & {
    effective_price?: number;
    special?: unknown;
  };
  return written;
}

/**
 * The item's fields come from the OpenAPI document's ItemInput schema (itself made from the domain's
 * one item schema): a request form's other spelling of a field, and the id, are left out.
 */
function editableFields(schema: JsonSchema): [string, JsonSchema][] {
  return Object.entries(schema.properties ?? {}).filter(
    ([name, field]) =>
      name !== 'id' && name !== 'prices' && !field.description?.startsWith("A request form's spelling"),
  );
}

const typesOf = (field: JsonSchema) => [field.type ?? []].flat();
const isList = (field: JsonSchema) => typesOf(field).includes('array');
const isNumber = (field: JsonSchema) =>
  typesOf(field).includes('number') || typesOf(field).includes('integer');
const isFlag = (field: JsonSchema) => typesOf(field).includes('boolean');
const nullable = (field: JsonSchema) => typesOf(field).includes('null');
const labelOf = (name: string) => (name.charAt(0).toUpperCase() + name.slice(1)).replaceAll('_', ' ');

export function ItemEditor(props: {
  dispensaryId: number;
  item: CanonicalItem | undefined;
  onClose: () => void;
  /** null: the item was deleted. */
  onSaved: (item: CanonicalItem | null, message: string) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [schema, setSchema] = useState<JsonSchema>();
  const [priceSchema, setPriceSchema] = useState<JsonSchema>();
  const [draft, setDraft] = useState<Draft>(() =>
    props.item
      ? ({ ...props.item, prices: props.item.prices.map(writtenEntry) } as Draft)
      : { name: '', product_type: 'Flower', active: true, prices: [] },
  );
  const [failure, setFailure] = useState<ApiError>();
  const [error, setError] = useState('');
  const [deleting, setDeleting] = useState(false);
  useEffect(() => {
    dialog.current?.showModal();
    schemaOf('ItemInput').then(
      (input) => {
        setSchema(input);
        setPriceSchema(input.properties?.prices?.items);
      },
      (problem: unknown) => setError(messageOf(problem)),
    );
  }, []);
  const set = (name: string, value: unknown) => setDraft({ ...draft, [name]: value });
  const setPrice = (position: number, name: keyof Price, value: unknown) =>
    setDraft({
      ...draft,
      prices: draft.prices.map((price, at) => (at === position ? { ...price, [name]: value } : price)),
    });
  const fieldError = (name: string) => failure?.at(name);
  const title = props.item ? `Edit ${props.item.name}` : 'Add an item';

  const save = async () => {
    setFailure(undefined);
    setError('');
    const base = `/dispensaries/${props.dispensaryId}/menu/items`;
    try {
      if (props.item) {
        const { id: _id, ...fields } = draft;
        const saved = await api<CanonicalItem>('PATCH', `${base}/${props.item.id}`, fields);
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
          {schema &&
            editableFields(schema).map(([name, field]) => {
              const id = `field-${name}`;
              const message = fieldError(name);
              const common = {
                id,
                'aria-invalid': message ? true : undefined,
                'aria-describedby': message ? `${id}-error` : undefined,
              };
              const value = draft[name];
              let input: JSX.Element;
              if (field.enum) {
                input = (
                  <select
                    {...common}
                    value={String(value ?? '')}
                    onChange={(event) => set(name, event.currentTarget.value)}
                  >
                    {field.enum.map((option) => (
                      <option key={option}>{option}</option>
                    ))}
                  </select>
                );
              } else if (isFlag(field)) {
                input = (
                  <input
                    {...common}
                    type="checkbox"
                    checked={Boolean(value)}
                    onChange={(event) => set(name, event.currentTarget.checked)}
                  />
                );
              } else if (isList(field)) {
                input = (
                  <input
                    {...common}
                    value={((value as string[] | undefined) ?? []).join('; ')}
                    onInput={(event) =>
                      set(
                        name,
                        event.currentTarget.value
                          .split(';')
                          .map((part) => part.trim())
                          .filter((part) => part !== ''),
                      )
                    }
                  />
                );
              } else if (isNumber(field)) {
                input = (
                  <input
                    {...common}
                    inputMode="decimal"
                    value={value === null || value === undefined ? '' : String(value)}
                    onInput={(event) => {
                      const text = event.currentTarget.value.trim();
                      set(
                        name,
                        text === '' && nullable(field)
                          ? null
                          : Number.isNaN(Number(text))
                            ? text
                            : Number(text),
                      );
                    }}
                  />
                );
              } else if ((field.maxLength ?? 0) > 1000) {
                input = (
                  <textarea
                    {...common}
                    rows={3}
                    value={String(value ?? '')}
                    onInput={(event) => set(name, event.currentTarget.value)}
                  />
                );
              } else {
                input = (
                  <input
                    {...common}
                    value={value === null || value === undefined ? '' : String(value)}
                    onInput={(event) => {
                      const text = event.currentTarget.value;
                      set(name, text === '' && nullable(field) ? null : text);
                    }}
                  />
                );
              }
              return (
                <div class="field" key={name}>
                  <label for={id}>
                    {labelOf(name)}
                    {isList(field) ? ' (separate with ;)' : ''}
                  </label>
                  {input}
                  <ErrorText id={`${id}-error`} message={message} />
                </div>
              );
            })}
        </div>
        <fieldset>
          <legend>Price entries</legend>
          {draft.prices.map((price, position) => (
            <fieldset class="row entry" key={position}>
              <legend class="visually-hidden">Price entry {position + 1}</legend>
              <label>
                Unit
                <select
                  value={price.unit}
                  onChange={(event) => setPrice(position, 'unit', event.currentTarget.value)}
                >
                  {(priceSchema?.properties?.unit?.enum ?? [price.unit]).map((unit) => (
                    <option key={unit}>{unit}</option>
                  ))}
                </select>
              </label>
              {(['amount', 'price', 'stock'] as const).map((name) => {
                const message = fieldError(`prices[${position}].${name}`);
                const id = `price-${position}-${name}`;
                return (
                  <span key={name}>
                    <label for={id}>{labelOf(name)}</label>
                    <input
                      id={id}
                      inputMode="decimal"
                      size={7}
                      aria-invalid={message ? true : undefined}
                      aria-describedby={message ? `${id}-error` : undefined}
                      value={price[name] === null ? '' : String(price[name])}
                      onInput={(event) => {
                        const text = event.currentTarget.value.trim();
                        setPrice(
                          position,
                          name,
                          text === '' && name === 'stock'
                            ? null
                            : Number.isNaN(Number(text))
                              ? text
                              : Number(text),
                        );
                      }}
                    />
                    <ErrorText id={`${id}-error`} message={message} />
                  </span>
                );
              })}
              <button
                type="button"
                onClick={() =>
                  setDraft({ ...draft, prices: draft.prices.filter((_, at) => at !== position) })
                }
              >
                Remove price entry {position + 1}
              </button>
            </fieldset>
          ))}
          <button
            type="button"
            onClick={() =>
              setDraft({
                ...draft,
                prices: [...draft.prices, { unit: 'gram', amount: 1, price: 0, stock: null }],
              })
            }
          >
            Add price entry
          </button>
        </fieldset>
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
