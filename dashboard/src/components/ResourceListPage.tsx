import type { ReactNode } from 'react';
import { Link } from '../router';
import { DataTable, type DataTableProps, type TableFilter } from './DataTable';
import { EntityPage, Section } from './EntityPage';

/** Where a table's rows come from: a page fetch, cached under `queryKey` (what changes invalidate). */
export interface ListSource<Row> {
  queryKey: readonly unknown[];
  fetchPage: DataTableProps<Row>['fetchPage'];
}

/** Rows are told apart by their `id`, unless the table says how (`getRowId`). */
type RowIds<Row> = Row extends { id: string }
  ? { getRowId?: (row: Row) => string }
  : { getRowId: (row: Row) => string };

/** What a page may set of a table it shares with others (a customer's orders). */
export interface TableOptions {
  /** Query parameters every page request carries (`customer_id` on a customer's page). */
  scope?: Record<string, string>;
  filters?: readonly TableFilter[];
  urlPrefix?: string;
  empty?: ReactNode;
  /** Filters the page keeps itself (the customer picker), shown with the others. */
  toolbar?: ReactNode;
}

interface TableProps<Row>
  extends Omit<DataTableProps<Row>, 'queryKey' | 'fetchPage' | 'getRowId'>,
    TableOptions {
  source: ListSource<Row>;
  getRowId?: (row: Row) => string;
}

export type ResourceTableProps<Row> = TableProps<Row> & RowIds<Row>;

/** A DataTable of one resource, its rows keyed by id, narrowed to `scope` when given. */
export function ResourceTable<Row>(props: ResourceTableProps<Row>) {
  return <Table {...props} />;
}

function Table<Row>({ source, scope, getRowId, ...table }: TableProps<Row>) {
  const { queryKey, fetchPage } = source;
  return (
    <DataTable
      {...table}
      queryKey={scope ? [...queryKey, scope] : queryKey}
      fetchPage={scope ? (query, signal) => fetchPage({ ...query, ...scope }, signal) : fetchPage}
      // RowIds asks rows without an id for their getRowId.
      getRowId={getRowId ?? ((row) => (row as { id: string }).id)}
    />
  );
}

interface PageProps<Row> extends Omit<TableProps<Row>, 'label'> {
  title: string;
  /** The table's caption, when it is not the title. */
  label?: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
  /**
   * Where new ones are made (`{ to: '/products/new', noun: 'product' }`): the "New product"
   * action, and the empty table's "No products match. Create a product." (`yet` unfiltered).
   */
  create?: { to: string; noun: string };
  /** A form that adds one, in a section of its own above the table; false when none may. */
  newForm?: { title: string; form: ReactNode } | false;
  /** The title of the section holding the table, on pages with other sections. */
  section?: string;
  /** What the page shows above and below the table: tabs, totals, dialogs. */
  above?: ReactNode;
  below?: ReactNode;
}

/**
 * A page listing one resource: its heading, then its table, a server page at a time.
 *
 *   <ResourceListPage title="Discounts" create={{ to: '/discounts/new', noun: 'discount' }}
 *     source={{ queryKey: discountsKey, fetchPage: discountsApi.list }} columns={columns}
 *     filters={filters} defaultSorting="-created_at" />
 */
export function ResourceListPage<Row>(props: PageProps<Row> & RowIds<Row>) {
  const {
    title,
    label = title,
    subtitle,
    actions,
    create,
    newForm,
    section,
    above,
    below,
    ...table
  }: PageProps<Row> = props;
  const shown = (
    <Table
      {...table}
      label={label}
      empty={
        table.empty ??
        (create && (
          <>
            {`No ${title.toLowerCase()} ${table.filters ? 'match' : 'yet'}. `}
            <Link to={create.to}>{`Create a ${create.noun}`}</Link>.
          </>
        ))
      }
    />
  );
  return (
    <EntityPage
      title={title}
      subtitle={subtitle}
      actions={
        actions ??
        (create && (
          <Link to={create.to} className="button button-primary">
            {`New ${create.noun}`}
          </Link>
        ))
      }
    >
      {newForm && <Section title={newForm.title}>{newForm.form}</Section>}
      {above}
      {section ? <Section title={section}>{shown}</Section> : shown}
      {below}
    </EntityPage>
  );
}
