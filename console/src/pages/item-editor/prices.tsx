import type { CanonicalItem } from '../../../../src/client/types.js';
import type { JsonSchema } from '../../api.js';
import { ErrorText } from '../../components.js';
import { labelOf, type MessageAt } from './names.js';
import { emptyValue, ValueInput } from './value-input.js';

export type Price = CanonicalItem['prices'][number];

/**
 * The price entries: a group per entry with a field for each of the entry's fields (unit, amount,
 * price, stock, label, medical price, SKU, barcode: the price entry's schema lists them).
 */
export function PriceEntries(props: {
  schema: JsonSchema;
  prices: Price[];
  onChange: (prices: Price[]) => void;
  messageAt: MessageAt;
}) {
  const fields = Object.entries(props.schema.properties ?? {});
  const setPrice = (position: number, name: string, value: unknown) =>
    props.onChange(
      props.prices.map((price, at) => (at === position ? ({ ...price, [name]: value } as Price) : price)),
    );
  return (
    <fieldset>
      <legend>Price entries</legend>
      {props.prices.map((price, position) => (
        <fieldset class="row entry" key={position}>
          <legend class="visually-hidden">Price entry {position + 1}</legend>
          {fields.map(([name, schema]) => {
            const message = props.messageAt(`prices[${position}].${name}`);
            const id = `price-${position}-${name}`;
            return (
              <span key={name}>
                <label for={id}>{labelOf(name)}</label>
                <ValueInput
                  id={id}
                  schema={schema}
                  size={name === 'label' || name === 'sku' || name === 'barcode' ? 12 : 7}
                  value={(price as Record<string, unknown>)[name]}
                  invalidBy={message ? `${id}-error` : undefined}
                  onChange={(value) => setPrice(position, name, value)}
                />
                <ErrorText id={`${id}-error`} message={message} />
              </span>
            );
          })}
          <button
            type="button"
            onClick={() => props.onChange(props.prices.filter((_, at) => at !== position))}
          >
            Remove price entry {position + 1}
          </button>
        </fieldset>
      ))}
      <button
        type="button"
        onClick={() =>
          props.onChange([
            ...props.prices,
            {
              ...(Object.fromEntries(fields.map(([name, schema]) => [name, emptyValue(schema)])) as Price),
              unit: 'gram',
              amount: 1,
            },
          ])
        }
      >
        Add price entry
      </button>
    </fieldset>
  );
}
