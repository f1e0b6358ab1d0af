import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { DispensarySummary } from '../../src/client/types.js';
import { api } from './api.js';
import { Alert, when } from './components.js';

/** A table's column headers; `actions` adds a last column, of buttons, named for screen readers only. */
export function TableHead(props: { columns: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column) => (
          <th scope="col" key={column}>
            {column}
          </th>
        ))}
        {props.actions && (
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/**
 * A list loaded with useLoad, as a table: why it did not load (above it), the column headers, and a
 * row for each entry.
 */
export function ListTable<Entry>(props: {
  list: { data: Entry[] | undefined; error: string };
  columns: string[];
  /** Adds a last column, of buttons. */
  actions?: boolean;
  /** The table's name for screen readers, where no heading names it. */
  caption?: string;
  row: (entry: Entry) => ComponentChildren;
}) {
  return (
    <>
      <Alert message={props.list.error} />
      <table>
        {props.caption && <caption class="visually-hidden">{props.caption}</caption>}
        <TableHead columns={props.columns} actions={props.actions} />
        <tbody>{props.list.data?.map(props.row)}</tbody>
      </table>
    </>
  );
}

/** A column of a ColumnTable: its header, what its cell shows of an entry, and the cell's class. */
export type Column<Entry> = readonly [
  header: string,
  cell: (entry: Entry) => ComponentChildren,
  cellClass?: string,
];

/**
 * A ListTable made column by column, each header beside its cell so that the two cannot drift apart;
 * `actions` makes a row's last cell (a whole <td>, of buttons).
 */
export function ColumnTable<Entry>(props: {
  list: { data: Entry[] | undefined; error: string };
  columns: Column<Entry>[];
  keyOf: (entry: Entry) => string | number;
  actions?: (entry: Entry) => ComponentChildren;
  caption?: string;
}) {
  return (
    <ListTable
      list={props.list}
      caption={props.caption}
      columns={props.columns.map(([header]) => header)}
      actions={props.actions !== undefined}
      row={(entry) => (
        <tr key={props.keyOf(entry)}>
          {props.columns.map(([header, cell, cellClass]) => (
            <td key={header} class={cellClass}>
              {cell(entry)}
            </td>
          ))}
          {props.actions?.(entry)}
        </tr>
      )}
    />
  );
}

/** A button that removes or revokes something (named for screen readers: which one). */
export function DangerButton(props: { name: string; onClick: () => void; children: ComponentChildren }) {
  return (
    <button type="button" class="danger" aria-label={props.name} onClick={props.onClick}>
      {props.children}
    </button>
  );
}

/** A column of when something happened (— for never), from the entry's field of that name. */
export function timeColumn<Key extends string>(
  header: string,
  field: Key,
): Column<{ [field in Key]: string | null | undefined }> {
  return [header, (entry) => when(entry[field])];
}

/** The Status column of something revocable: Active, or Revoked and when. */
export function statusColumn<Entry extends { revoked_at: string | null }>(): Column<Entry> {
  return ['Status', (entry) => (entry.revoked_at ? `Revoked ${when(entry.revoked_at)}` : 'Active')];
}

/** A revocable row's last cell: its Revoke button, while it is active. */
export function RevokeCell(props: {
  name: string;
  revokedAt: string | null;
  onRevoke: (name: string) => void;
}) {
  return (
    <td>
      {!props.revokedAt && (
        <DangerButton name={`Revoke ${props.name}`} onClick={() => props.onRevoke(props.name)}>
          Revoke
        </DangerButton>
      )}
    </td>
  );
}

/** Checkboxes that choose some of a list (what none checked means, the legend says). */
export function CheckGroup<Value extends string | number>(props: {
  legend: string;
  options: { value: Value; label: string }[] | undefined;
  chosen: Value[];
  onChange: (chosen: Value[]) => void;
}) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.options?.map((option) => (
        <label class="check" key={option.value}>
          <input
            type="checkbox"
            checked={props.chosen.includes(option.value)}
            onChange={(event) =>
              props.onChange(
                event.currentTarget.checked
                  ? [...props.chosen, option.value]
                  : props.chosen.filter((value) => value !== option.value),
              )
            }
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}

/** A "Dispensary" picker whose values are dispensary ids; `children` are options before theirs. */
export function DispensarySelect(props: {
  value: string;
  onChange: (value: string) => void;
  list: Pick<DispensarySummary, 'id' | 'name'>[] | undefined;
  children?: ComponentChildren;
}) {
  return (
    <label>
      Dispensary
      <select value={props.value} onChange={(event) => props.onChange(event.currentTarget.value)}>
        {props.children}
        {props.list?.map((dispensary) => (
          <option key={dispensary.id} value={String(dispensary.id)}>
            {dispensary.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * What a list row's button would delete (a key to revoke, a webhook to remove) while a Confirm asks,
 * and that Confirm's handlers: Cancel closes it; confirming deletes, closes it and reloads the list.
 */
export function useDeletion<Target>(path: (target: Target) => string, onDeleted: () => void) {
  const [target, setTarget] = useState<Target>();
  return {
    target,
    ask: (chosen: Target) => setTarget(chosen),
    handlers: {
      onCancel: () => setTarget(undefined),
      onConfirm: async () => {
        if (target === undefined) return;
        await api('DELETE', path(target));
        setTarget(undefined);
        onDeleted();
      },
    },
  };
}
