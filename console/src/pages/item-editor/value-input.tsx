import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { JsonSchema } from '../../api.js';

/**
 * One value of the item, read and written as its schema (from the OpenAPI document) says: a choice
 * is a select (with an empty choice when it may be null), a flag a checkbox (a select of yes, no and
 * unsaid when it may be null), a list of words one text of `;`-separated parts, a day a date field,
 * a number a decimal text. Text the browser would refuse is sent as typed: the server's message then
 * says what is wrong, at the field.
 */

const typesOf = (schema: JsonSchema) => [schema.type ?? []].flat();
export const isList = (schema: JsonSchema) => typesOf(schema).includes('array');
export const isObject = (schema: JsonSchema) => typesOf(schema).includes('object');
const isNumber = (schema: JsonSchema) =>
  typesOf(schema).includes('number') || typesOf(schema).includes('integer');
const isFlag = (schema: JsonSchema) => typesOf(schema).includes('boolean');
const nullable = (schema: JsonSchema) => typesOf(schema).includes('null');
const DAY = '^\\d{4}-\\d{2}-\\d{2}$';

/** What a new row or document starts with for this value: its default, its first choice, or empty. */
export function emptyValue(schema: JsonSchema): unknown {
  if (schema.default !== undefined) return schema.default;
  if (nullable(schema)) return null;
  if (schema.enum) return schema.enum[0];
  if (isFlag(schema)) return false;
  if (isList(schema)) return [];
  if (isNumber(schema)) return 0;
  return '';
}

export interface ValueInputProps {
  id: string;
  schema: JsonSchema;
  value: unknown;
  onChange: (value: unknown) => void;
  /** The accessible name when no visible label points at the field (a table cell). */
  label?: string;
  /** The id of the message that says what is wrong with the value, if any. */
  invalidBy?: string | undefined;
  /** A datalist's id: the words this field expects (analyte codes). */
  list?: string;
  size?: number;
}

export function ValueInput(props: ValueInputProps): JSX.Element {
  const { schema, value, onChange } = props;
  const common = {
    id: props.id,
    'aria-label': props.label,
    'aria-invalid': props.invalidBy ? true : undefined,
    'aria-describedby': props.invalidBy,
  } as const;
  if (schema.enum) {
    return (
      <select
        {...common}
        value={value === null || value === undefined ? '' : String(value)}
        onChange={(event) => onChange(event.currentTarget.value === '' ? null : event.currentTarget.value)}
      >
        {nullable(schema) && <option value="">—</option>}
        {schema.enum.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    );
  }
  if (isFlag(schema) && nullable(schema)) {
    return (
      <select
        {...common}
        value={value === null || value === undefined ? '' : String(value)}
        onChange={(event) => {
          const chosen = event.currentTarget.value;
          onChange(chosen === '' ? null : chosen === 'true');
        }}
      >
        <option value="">—</option>
        <option value="true">yes</option>
        <option value="false">no</option>
      </select>
    );
  }
  if (isFlag(schema)) {
    return (
      <input
        {...common}
        type="checkbox"
        checked={Boolean(value)}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
    );
  }
  if (isList(schema)) {
    return (
      <input
        {...common}
        value={((value as string[] | undefined) ?? []).join('; ')}
        onInput={(event) =>
          onChange(
            event.currentTarget.value
              .split(';')
              .map((part) => part.trim())
              .filter((part) => part !== ''),
          )
        }
      />
    );
  }
  const shown = value === null || value === undefined ? '' : String(value);
  if (isNumber(schema)) return <NumberInput {...props} common={common} />;
  if ((schema.maxLength ?? 0) > 1000 && !schema.pattern) {
    return (
      <textarea {...common} rows={3} value={shown} onInput={(event) => onChange(event.currentTarget.value)} />
    );
  }
  return (
    <input
      {...common}
      type={schema.pattern === DAY ? 'date' : 'text'}
      list={props.list}
      size={props.size}
      value={shown}
      onInput={(event) => {
        const text = event.currentTarget.value;
        onChange(text === '' && nullable(schema) ? null : text);
      }}
    />
  );
}

/**
 * A number as typed: the text is kept while it means the value (so "0." stays while 0.35 is typed),
 * and follows the value when something else changes it. Text that is no number is sent as it is.
 */
function NumberInput(props: ValueInputProps & { common: Record<string, unknown> }) {
  const { schema, value, onChange } = props;
  const [text, setText] = useState(value === null || value === undefined ? '' : String(value));
  const meant = (typed: string): unknown => {
    const trimmed = typed.trim();
    if (trimmed === '' && nullable(schema)) return null;
    return Number.isNaN(Number(trimmed)) || trimmed === '' ? trimmed : Number(trimmed);
  };
  const shown = meant(text) === value ? text : value === null || value === undefined ? '' : String(value);
  return (
    <input
      {...props.common}
      inputMode="decimal"
      size={props.size}
      value={shown}
      onInput={(event) => {
        setText(event.currentTarget.value);
        onChange(meant(event.currentTarget.value));
      }}
    />
  );
}
