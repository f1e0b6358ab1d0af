import type { JsonSchema } from '../../api.js';
import { ErrorText } from '../../components.js';
import { idOf, labelOf, type MessageAt } from './names.js';
import { isObject, ValueInput } from './value-input.js';

type Record_ = Record<string, unknown>;

/**
 * A structured value that may be null (the batch, the strain, the serving): a group of its fields,
 * a record inside it (the batch's tests) a group of its own. A null value shows empty fields; the
 * first one filled in makes the record (the server fills the rest, and stores a record that says
 * nothing as null). A one-word field is named with its record ("Strain type"), since "Type" or
 * "Name" alone would say nothing.
 */
export function DocumentEditor(props: {
  path: string;
  title: string;
  schema: JsonSchema;
  value: Record_ | null | undefined;
  onChange: (value: Record_) => void;
  messageAt: MessageAt;
}) {
  const value = props.value ?? {};
  const owner = labelOf(props.path.split('.')[0] ?? props.path);
  return (
    <fieldset class="document">
      <legend>{props.title}</legend>
      <ErrorText id={`${idOf(props.path)}-error`} message={props.messageAt(props.path)} />
      <div class="fields">
        {Object.entries(props.schema.properties ?? {}).map(([name, schema]) => {
          const path = `${props.path}.${name}`;
          if (isObject(schema))
            return (
              <DocumentEditor
                key={name}
                path={path}
                title={labelOf(name)}
                schema={schema}
                value={value[name] as Record_ | undefined}
                onChange={(inner) => props.onChange({ ...value, [name]: inner })}
                messageAt={props.messageAt}
              />
            );
          const id = idOf(path);
          const message = props.messageAt(path);
          const label = name.includes('_') || props.path.includes('.') ? labelOf(name) : `${owner} ${name}`;
          return (
            <div class="field" key={name}>
              <label for={id}>{label}</label>
              <ValueInput
                id={id}
                schema={schema}
                value={value[name] ?? (schema.default as unknown)}
                invalidBy={message ? `${id}-error` : undefined}
                onChange={(next) => props.onChange({ ...value, [name]: next })}
              />
              <ErrorText id={`${id}-error`} message={message} />
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}
