/**
 * A list the server pages, sorts and filters (Polar's `page`, `limit`, `sorting` and filter
 * query parameters), with its state in the URL so a reload or a shared link shows the same rows.
 * Only one page of rows is ever in the browser, so it stays fast whatever the list's length.
 *
 *   const columns = [
 *     column.accessor('email', { header: 'Email', enableSorting: true,
 *       cell: (cell) => <Link to={`/customers/${cell.row.original.id}`}>{cell.getValue()}</Link> }),
 *     column.accessor('created_at', { header: 'Created', enableSorting: true,
 *       cell: (cell) => <DateTime value={cell.getValue()} /> }),
 *   ];
 *   <DataTable label="Customers" queryKey={['customers']} columns={columns}
 *     fetchPage={(query, signal) => api.get('/v1/customers/', { query, signal })}
 *     filters={[{ name: 'query', label: 'Search', type: 'search' }]} defaultSorting="-created_at" />
 *
 * A column's id is its Polar sorting name (accessor key `created_at` → `sorting=-created_at`);
 * columns sort only with `enableSorting: true`.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  type ColumnDef,
  flexRender,
  getCoreRowModel,
  type SortingState,
  type Table,
  useReactTable,
} from '@tanstack/react-table';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import type { ListResource } from '../api/client';
import { useQueryState } from '../router';
import { ErrorMessage } from './ErrorMessage';

/** What one page request carries, ready to be the query of `api.get`. */
export interface PageQuery {
  page: number;
  limit: number;
  sorting: string[];
  [filter: string]: string | number | string[];
}

export type TableFilter =
  | { name: string; label: string; type: 'search' }
  | {
      name: string;
      label: string;
      type: 'select';
      options: readonly { value: string; label: string }[];
    };

export interface DataTableProps<Row> {
  /** The table's accessible name (its caption). */
  label: string;
  /** Identifies the list in the query cache; the page query is appended. */
  queryKey: readonly unknown[];
  fetchPage: (query: PageQuery, signal: AbortSignal) => Promise<ListResource<Row>>;
  // biome-ignore lint/suspicious/noExplicitAny: columns of any value type, as @tanstack/react-table types them
  columns: ColumnDef<Row, any>[];
  getRowId?: (row: Row) => string;
  filters?: readonly TableFilter[];
  /** Polar sorting criterion when the URL names none (`-created_at`). */
  defaultSorting?: string;
  /** Prefix of this table's URL query names, when a page shows two tables. */
  urlPrefix?: string;
  empty?: ReactNode;
  /** Filter controls the page keeps itself, shown first among the filters (a customer picker). */
  toolbar?: ReactNode;
}

const pageSizes = [10, 20, 50, 100];
const searchDelayMs = 300;

const toSorting = (criterion: string | null): SortingState =>
  criterion ? [{ id: criterion.replace(/^-/, ''), desc: criterion.startsWith('-') }] : [];

const positive = (text: string | null, fallback: number) => {
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};

export function DataTable<Row>({
  label,
  queryKey,
  fetchPage,
  columns,
  getRowId,
  filters = [],
  defaultSorting,
  urlPrefix = '',
  empty = 'Nothing here yet.',
  toolbar,
}: DataTableProps<Row>) {
  const [params, setParams] = useQueryState();
  const name = (key: string) => `${urlPrefix}${key}`;
  const page = positive(params.get(name('page')), 1);
  const limit = positive(params.get(name('limit')), 20);
  const sortingCriterion = params.get(name('sorting')) ?? defaultSorting ?? null;
  const filterValues = Object.fromEntries(
    filters.map((filter) => [filter.name, params.get(name(filter.name)) ?? '']),
  );
  const query: PageQuery = {
    page,
    limit,
    sorting: sortingCriterion ? [sortingCriterion] : [],
    ...Object.fromEntries(Object.entries(filterValues).filter(([, value]) => value)),
  };

  const list = useQuery({
    queryKey: [...queryKey, query],
    queryFn: ({ signal }) => fetchPage(query, signal),
    // The previous page stays on screen (dimmed) while the next loads: no jumping layout.
    placeholderData: keepPreviousData,
  });

  const table = useReactTable({
    data: list.data?.items ?? [],
    columns,
    getRowId,
    getCoreRowModel: getCoreRowModel(),
    manualPagination: true,
    manualSorting: true,
    manualFiltering: true,
    pageCount: list.data?.pagination.max_page ?? -1,
    defaultColumn: { enableSorting: false },
    // A click flips the direction; never "unsorted", which would fall back to defaultSorting
    // and could leave a column stuck in one direction.
    enableSortingRemoval: false,
    state: {
      sorting: toSorting(sortingCriterion),
      pagination: { pageIndex: page - 1, pageSize: limit },
    },
    onSortingChange: (updater) => {
      const next = typeof updater === 'function' ? updater(toSorting(sortingCriterion)) : updater;
      const first = next[0];
      setParams({
        [name('sorting')]: first ? `${first.desc ? '-' : ''}${first.id}` : null,
        [name('page')]: null,
      });
    },
  });

  const totalCount = list.data?.pagination.total_count ?? 0;
  const maxPage = list.data?.pagination.max_page ?? 0;
  const goTo = (target: number) =>
    setParams({ [name('page')]: target > 1 ? String(target) : null });

  return (
    <div className="data-table-frame">
      {(filters.length > 0 || toolbar) && (
        <search className="table-filters" aria-label={`Filter ${label}`}>
          {toolbar}
          {filters.map((filter) => (
            <FilterControl
              key={filter.name}
              filter={filter}
              value={filterValues[filter.name] ?? ''}
              onChange={(value) => setParams({ [name(filter.name)]: value, [name('page')]: null })}
            />
          ))}
        </search>
      )}
      {list.isError && (
        <ErrorMessage title={`Could not load ${label.toLowerCase()}`} error={list.error}>
          <button type="button" className="button" onClick={() => list.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      <div className="table-scroll">
        <table className="data-table" aria-busy={list.isFetching}>
          <caption className="visually-hidden">{label}</caption>
          <thead>
            {table.getHeaderGroups().map((headerGroup) => (
              <tr key={headerGroup.id}>
                {headerGroup.headers.map((header) => {
                  const sorted = header.column.getIsSorted();
                  const title = flexRender(header.column.columnDef.header, header.getContext());
                  return (
                    <th
                      key={header.id}
                      scope="col"
                      className={`col-${header.column.id}`}
                      aria-sort={
                        sorted === 'asc'
                          ? 'ascending'
                          : sorted === 'desc'
                            ? 'descending'
                            : undefined
                      }
                    >
                      {header.column.getCanSort() ? (
                        <button
                          type="button"
                          className="sort-button"
                          onClick={header.column.getToggleSortingHandler()}
                        >
                          {title}
                          <span aria-hidden="true" className="sort-mark">
                            {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}
                          </span>
                        </button>
                      ) : (
                        title
                      )}
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody className={list.isPlaceholderData ? 'stale' : undefined}>
            {list.isPending && (
              <tr>
                <td colSpan={columns.length} className="table-message">
                  Loading…
                </td>
              </tr>
            )}
            {list.isSuccess && totalCount === 0 && (
              <tr>
                <td colSpan={columns.length} className="table-message">
                  {empty}
                </td>
              </tr>
            )}
            <BodyRows table={table} />
          </tbody>
        </table>
      </div>
      <nav className="pagination" aria-label={`${label} pages`}>
        <span className="muted" aria-live="polite">
          {list.data
            ? `Page ${Math.min(page, Math.max(maxPage, 1))} of ${Math.max(maxPage, 1)} · ${totalCount} in all`
            : ''}
        </span>
        <label>
          Rows per page{' '}
          <select
            value={limit}
            onChange={(event) =>
              setParams({ [name('limit')]: event.target.value, [name('page')]: null })
            }
          >
            {pageSizes.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="button"
          onClick={() => goTo(page - 1)}
          disabled={page <= 1}
        >
          Previous
        </button>
        <button
          type="button"
          className="button"
          onClick={() => goTo(page + 1)}
          disabled={page >= maxPage}
        >
          Next
        </button>
      </nav>
    </div>
  );
}

/** A table's rows, each cell classed by its column (`col-total_amount`) for alignment. */
export function BodyRows<Row>({ table }: { table: Table<Row> }) {
  return table.getRowModel().rows.map((row) => (
    <tr key={row.id}>
      {row.getVisibleCells().map((cell) => (
        <td key={cell.id} className={`col-${cell.column.id}`}>
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </td>
      ))}
    </tr>
  ));
}

interface FilterControlProps {
  filter: TableFilter;
  value: string;
  onChange: (value: string) => void;
}

function FilterControl({ filter, value, onChange }: FilterControlProps) {
  const id = `filter-${filter.name}`;
  if (filter.type === 'select') {
    return (
      <label htmlFor={id}>
        {filter.label}{' '}
        <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
          <option value="">All</option>
          {filter.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
    );
  }
  return <SearchInput id={id} label={filter.label} value={value} onChange={onChange} />;
}

/** Typed text reaches the URL (and the server) once typing pauses. */
function SearchInput({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const [text, setText] = useState(value);
  const change = useRef(onChange);
  change.current = onChange;
  // The URL changed elsewhere (Back, a link): show its value.
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => change.current(text), searchDelayMs);
    return () => clearTimeout(timer);
  }, [text, value]);
  return (
    <label htmlFor={id}>
      {label}{' '}
      <input id={id} type="search" value={text} onChange={(event) => setText(event.target.value)} />
    </label>
  );
}
