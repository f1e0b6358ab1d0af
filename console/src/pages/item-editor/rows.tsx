import { useEffect, useRef } from 'preact/hooks';
import type { JsonSchema } from '../../api.js';
import { ErrorText } from '../../components.js';
import { idOf, labelOf, type MessageAt, wordOf } from './names.js';
import { emptyValue, ValueInput } from './value-input.js';

/**
 * A list of records (the lab's analytes, the images) as a table: a column per field of its schema,
 * a row per record, each value with its server message below it; rows are added and removed with
 * buttons. `vocabulary` offers the words a column expects (analyte codes) as a datalist, while
 * other spellings may still be typed (the server reads THC as d9-thc).
 */
export function RowsEditor(props: {
  name: string;
  title: string;
  /** One row's name, for its fields' and buttons' names: "Cannabinoid" makes "Cannabinoid 2 unit". */
  singular: string;
  schema: JsonSchema;
  rows: Record<string, unknown>[];
  onChange: (rows: Record<string, unknown>[]) => void;
  messageAt: MessageAt;
  vocabulary?: { column: string; words: readonly string[] };
  /** A change of one value that brings another along (a basis that needs another unit). */
  adjust?: (row: Record<string, unknown>, changed: string) => Record<string, unknown>;
}) {
  const columns = Object.entries(props.schema.properties ?? {});
  const listId = `${props.name}-vocabulary`;
  const setValue = (at: number, column: string, value: unknown) =>
    props.onChange(
      props.rows.map((row, position) => {
        if (position !== at) return row;
        const next = { ...row, [column]: value };
        return props.adjust ? props.adjust(next, column) : next;
      }),
    );
  const listMessage = props.messageAt(props.name);
  // A row added from the keyboard is where the typing goes next: its first field takes the focus.
  const added = useRef(false);
  useEffect(() => {
    if (!added.current) return;
    added.current = false;
    const first = columns[0]?.[0];
    if (first) document.getElementById(idOf(`${props.name}[${props.rows.length - 1}].${first}`))?.focus();
  }, [props.rows.length]);
  return (
    <fieldset class="rows">
      <legend>{props.title}</legend>
      <ErrorText id={`${props.name}-error`} message={listMessage} />
      {props.vocabulary && (
        <datalist id={listId}>
          {props.vocabulary.words.map((word) => (
            <option key={word} value={word} />
          ))}
        </datalist>
      )}
      {props.rows.length > 0 && (
        <table>
          <thead>
            <tr>
              {columns.map(([column]) => (
                <th key={column} scope="col">
                  {labelOf(column)}
                </th>
              ))}
              <th scope="col">
                <span class="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row, at) => {
              const rowPath = `${props.name}[${at}]`;
              const rowMessage = props.messageAt(rowPath);
              return (
                <tr key={at}>
                  {columns.map(([column, schema]) => {
                    const path = `${rowPath}.${column}`;
                    const message =
                      props.messageAt(path) ?? (column === columns[0]?.[0] ? rowMessage : undefined);
                    const id = idOf(path);
                    return (
                      <td key={column}>
                        <ValueInput
                          id={id}
                          schema={schema}
                          value={row[column]}
                          label={`${props.singular} ${at + 1} ${wordOf(column)}`}
                          invalidBy={message ? `${id}-error` : undefined}
                          size={column === 'min' || column === 'max' ? 6 : undefined}
                          onChange={(value) => setValue(at, column, value)}
                          {...(props.vocabulary?.column === column ? { list: listId } : {})}
                        />
                        <ErrorText id={`${id}-error`} message={message} />
                      </td>
                    );
                  })}
                  <td>
                    <button
                      type="button"
                      onClick={() => props.onChange(props.rows.filter((_, position) => position !== at))}
                    >
                      Remove {props.singular.toLowerCase()} {at + 1}
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <button
        type="button"
        onClick={() => {
          added.current = true;
          props.onChange([
            ...props.rows,
            Object.fromEntries(columns.map(([column, schema]) => [column, emptyValue(schema)])),
          ]);
        }}
      >
        Add {props.singular.toLowerCase()}
      </button>
    </fieldset>
  );
}
