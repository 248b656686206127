import { createColumnHelper } from '@tanstack/react-table';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
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
    <ResourceListPage
      title="Checkout links"
      subtitle="Shareable links that open a checkout for their products."
      create={{ to: '/checkout-links/new', noun: 'checkout link' }}
      source={{ queryKey: checkoutLinksKey, fetchPage: checkoutLinksApi.list }}
      columns={columns}
      defaultSorting="-created_at"
    />
  );
}
