import { createColumnHelper } from '@tanstack/react-table';
import { DataTable } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { EntityPage } from '../../components/EntityPage';
import { Link } from '../../router';
import { type CheckoutLink, checkoutLinksApi, checkoutLinksKey, linkName } from './api';
import { CopyUrlButton } from './CopyUrlButton';

const column = createColumnHelper<CheckoutLink>();

const columns = [
  column.accessor('label', {
    header: 'Link',
    enableSorting: true,
    cell: (cell) => (
      <Link to={`/checkout-links/${cell.row.original.id}`}>{linkName(cell.row.original)}</Link>
    ),
  }),
  column.accessor('products', {
    header: 'Products',
    cell: (cell) =>
      cell
        .getValue()
        .map((product) => product.name)
        .join(', '),
  }),
  column.accessor('url', {
    header: 'URL',
    cell: (cell) => <CopyUrlButton url={cell.getValue()} />,
  }),
  column.accessor('allow_discount_codes', {
    header: 'Discount codes',
    enableSorting: true,
    cell: (cell) => (cell.getValue() ? 'allowed' : 'not allowed'),
  }),
  column.accessor('created_at', {
    header: 'Created',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

export default function CheckoutLinksPage() {
  return (
    <EntityPage
      title="Checkout links"
      subtitle="Shareable links that open a checkout for their products."
      actions={
        <Link to="/checkout-links/new" className="button button-primary">
          New checkout link
        </Link>
      }
    >
      <DataTable
        label="Checkout links"
        queryKey={checkoutLinksKey}
        columns={columns}
        getRowId={(link) => link.id}
        fetchPage={checkoutLinksApi.list}
        defaultSorting="-created_at"
        empty={
          <>
            No checkout links yet. <Link to="/checkout-links/new">Create a checkout link</Link>.
          </>
        }
      />
    </EntityPage>
  );
}
