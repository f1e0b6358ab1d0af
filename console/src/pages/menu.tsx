import {
  type ColumnDef,
  createSortedRowModel,
  rowSortingFeature,
  type SortingState,
  sortFn_alphanumeric,
  sortFn_basic,
  tableFeatures,
  useTable,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'preact/hooks';
import type { CanonicalItem } from '../../../src/client/types.js';
import { ApiError, api, messageOf } from '../api.js';
import { Alert, ErrorText, useLoad } from '../components.js';
import { ItemEditor } from './item-editor.js';

type Price = CanonicalItem['prices'][number];

const features = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic },
});

/** The sortable columns; the cells are drawn by the row (inputs for stock and active). */
const columns: ColumnDef<typeof features, CanonicalItem>[] = [
  { id: 'name', accessorFn: (item) => item.name.toLowerCase(), header: 'Name', sortFn: 'alphanumeric' },
  { id: 'brand', accessorFn: (item) => item.brand.toLowerCase(), header: 'Brand', sortFn: 'alphanumeric' },
  { id: 'product_type', accessorKey: 'product_type', header: 'Type', sortFn: 'alphanumeric' },
  {
    id: 'product_subtype',
    accessorFn: (item) => item.product_subtype.toLowerCase(),
    header: 'Subtype',
    sortFn: 'alphanumeric',
  },
  { id: 'active', accessorFn: (item) => (item.active ? 1 : 0), header: 'Active', sortFn: 'basic' },
];

const ROW_HEIGHT = 48;

export function MenuTab(props: { id: number }) {
  const menu = useLoad(() => api<CanonicalItem[]>('GET', `/dispensaries/${props.id}/menu`), [props.id]);
  const [items, setItems] = useState<CanonicalItem[] | undefined>();
  const [search, setSearch] = useState('');
  const [type, setType] = useState('');
  const [inStock, setInStock] = useState(false);
  const [sorting, setSorting] = useState<SortingState>([]);
  const [editing, setEditing] = useState<CanonicalItem | 'new'>();
  const [status, setStatus] = useState('');
  const all = items ?? menu.data ?? [];
  const types = useMemo(() => [...new Set(all.map((item) => item.product_type))].sort(), [all]);
  const filtered = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return all.filter(
      (item) =>
        (type === '' || item.product_type === type) &&
        (!inStock || item.prices.some((price) => price.stock === null || price.stock > 0)) &&
        (needle === '' ||
          item.name.toLowerCase().includes(needle) ||
          item.brand.toLowerCase().includes(needle) ||
          item.product_subtype.toLowerCase().includes(needle)),
    );
  }, [all, search, type, inStock]);
  const table = useTable({
    features,
    columns,
    data: filtered,
    state: { sorting },
    onSortingChange: setSorting,
    getRowId: (item) => String(item.id),
  });
  const rows = table.getRowModel().rows;
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const replaceItem = (next: CanonicalItem) =>
    setItems(all.map((item) => (item.id === next.id ? next : item)));
  const virtualRows = virtualizer.getVirtualItems();
  const before = virtualRows[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (virtualRows.at(-1)?.end ?? 0);

  return (
    <section aria-label="Menu">
      <div class="row filters">
        <label>
          Search
          <input type="search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
        </label>
        <label>
          Type
          <select value={type} onChange={(event) => setType(event.currentTarget.value)}>
            <option value="">All types</option>
            {types.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={inStock}
            onChange={(event) => setInStock(event.currentTarget.checked)}
          />
          In stock only
        </label>
        <button type="button" onClick={() => setEditing('new')}>
          Add item
        </button>
        <span role="status" class="count">
          {menu.data ? `${filtered.length} of ${all.length} items` : 'Loading the menu…'}
        </span>
      </div>
      <Alert message={menu.error} />
      <p role="status" class="saved">
        {status}
      </p>
      <div ref={scroller} class="scroller" tabIndex={-1}>
        <table class="menu" aria-rowcount={rows.length + 1}>
          <caption class="visually-hidden">Menu items</caption>
          <thead>
            <tr>
              {table.getHeaderGroups()[0]!.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                return (
                  <th
                    key={header.id}
                    scope="col"
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
                  >
                    <button type="button" class="sort" onClick={header.column.getToggleSortingHandler()}>
                      {String(header.column.columnDef.header)}
                      <span aria-hidden="true">
                        {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                      </span>
                    </button>
                  </th>
                );
              })}
              <th scope="col">Prices and stock</th>
            </tr>
          </thead>
          <tbody>
            {before > 0 && (
              <tr class="spacer">
                <td colSpan={6} style={{ height: `${before}px` }} />
              </tr>
            )}
            {virtualRows.map((virtual) => {
              const item = rows[virtual.index]!.original;
              return (
                <ItemRow
                  key={item.id}
                  index={virtual.index}
                  dispensaryId={props.id}
                  item={item}
                  onEdit={() => setEditing(item)}
                  onChange={(next, message) => {
                    replaceItem(next);
                    setStatus(message);
                  }}
                />
              );
            })}
            {after > 0 && (
              <tr class="spacer">
                <td colSpan={6} style={{ height: `${after}px` }} />
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {editing !== undefined && (
        <ItemEditor
          dispensaryId={props.id}
          item={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(undefined)}
          onSaved={(saved, message) => {
            setEditing(undefined);
            setStatus(message);
            if (saved === null) menu.reload();
            else if (all.some((item) => item.id === saved.id)) replaceItem(saved);
            else setItems([...all, saved]);
            if (saved === null) setItems(undefined);
          }}
        />
      )}
    </section>
  );
}

function priceLabel(price: Price): string {
  return `${price.amount} ${price.unit}${price.amount === 1 ? '' : 's'}`;
}

function ItemRow(props: {
  index: number;
  dispensaryId: number;
  item: CanonicalItem;
  onEdit: () => void;
  onChange: (item: CanonicalItem, message: string) => void;
}) {
  const { item } = props;
  const [activeError, setActiveError] = useState('');
  return (
    <tr aria-rowindex={props.index + 2} style={{ height: `${ROW_HEIGHT}px` }}>
      <td>
        <button type="button" class="link" onClick={props.onEdit} aria-label={`Edit ${item.name}`}>
          {item.name}
        </button>
      </td>
      <td>{item.brand}</td>
      <td>{item.product_type}</td>
      <td>{item.product_subtype}</td>
      <td>
        <input
          type="checkbox"
          role="switch"
          aria-checked={item.active}
          aria-label={`Active: ${item.name}`}
          checked={item.active}
          onChange={async (event) => {
            // Kept before the await: an event's currentTarget is null once it has been dispatched.
            const box = event.currentTarget;
            const active = box.checked;
            setActiveError('');
            try {
              const saved = await api<CanonicalItem>(
                'PATCH',
                `/dispensaries/${props.dispensaryId}/menu/items/${item.id}`,
                { active },
              );
              props.onChange(saved as CanonicalItem, `${item.name} is now ${active ? 'active' : 'hidden'}.`);
            } catch (failure) {
              box.checked = item.active;
              setActiveError(messageOf(failure));
            }
          }}
        />
        <ErrorText message={activeError} />
      </td>
      <td class="prices">
        {item.prices.map((price, position) => (
          <StockInput
            key={`${price.unit}-${price.amount}-${position}`}
            dispensaryId={props.dispensaryId}
            item={item}
            price={price}
            onSaved={(stock) =>
              props.onChange(
                {
                  ...item,
                  prices: item.prices.map((entry, at) => (at === position ? { ...entry, stock } : entry)),
                },
                `Stock of ${item.name}, ${priceLabel(price)}: ${stock ?? 'not tracked'}.`,
              )
            }
          />
        ))}
      </td>
    </tr>
  );
}

function StockInput(props: {
  dispensaryId: number;
  item: CanonicalItem;
  price: Price;
  onSaved: (stock: number | null) => void;
}) {
  const { item, price } = props;
  const shown = price.stock === null ? '' : String(price.stock);
  const [value, setValue] = useState(shown);
  const [error, setError] = useState('');
  const [saving, setSaving] = useState(false);
  const id = `stock-${item.id}-${price.unit}-${price.amount}`.replace(/[^A-Za-z0-9-]/g, '_');
  const save = async () => {
    if (value === shown || saving) return;
    const stock = value.trim() === '' ? null : Number(value);
    setSaving(true);
    setError('');
    try {
      await api('PATCH', `/dispensaries/${props.dispensaryId}/inventory`, [
        {
          item_id: item.id,
          unit: price.unit,
          amount: price.amount,
          stock: Number.isNaN(stock) ? value : stock,
        },
      ]);
      props.onSaved(stock);
    } catch (failure) {
      setError(
        failure instanceof ApiError ? (failure.problems[0]?.message ?? failure.message) : messageOf(failure),
      );
    } finally {
      setSaving(false);
    }
  };
  return (
    <span class="price">
      <span>
        {priceLabel(price)} · {price.price.toFixed(2)}
      </span>
      <input
        class="stock"
        inputMode="numeric"
        aria-label={`Stock ${item.name}, ${priceLabel(price)}`}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        value={value}
        size={5}
        onInput={(event) => setValue(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            void save();
          }
          if (event.key === 'Escape') setValue(shown);
        }}
        onBlur={() => void save()}
      />
      <ErrorText id={`${id}-error`} message={error} />
    </span>
  );
}
