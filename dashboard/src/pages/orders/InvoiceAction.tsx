import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorMessage } from '../../components/ErrorMessage';
import { fetchInvoiceUrl, generateInvoice, type Order } from './api';

/**
 * The order's invoice: a link once it is generated (its signed URL opens without signing in),
 * otherwise a button that generates it; a refusal (no billing address, not paid) shows here.
 */
export function InvoiceAction({ order }: { order: Order }) {
  const queryClient = useQueryClient();
  const invoice = useQuery({
    queryKey: ['order', order.id, 'invoice'],
    queryFn: () => fetchInvoiceUrl(order.id),
    enabled: order.is_invoice_generated,
  });
  const generate = useMutation({
    mutationFn: () => generateInvoice(order.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['order', order.id] }),
  });

  if (order.is_invoice_generated) {
    if (invoice.isError)
      return <ErrorMessage title="Could not find the invoice" error={invoice.error} />;
    return invoice.data ? (
      <a className="button" href={invoice.data} target="_blank" rel="noreferrer">
        Invoice
      </a>
    ) : (
      <span className="muted">Invoice…</span>
    );
  }
  if (!order.paid) return null;
  return (
    <>
      {generate.isError && (
        <ErrorMessage title="Could not generate the invoice" error={generate.error} />
      )}
      <button
        type="button"
        className="button"
        onClick={() => generate.mutate()}
        disabled={generate.isPending}
      >
        {generate.isPending ? 'Generating invoice…' : 'Generate invoice'}
      </button>
    </>
  );
}
