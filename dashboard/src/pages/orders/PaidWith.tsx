import { useQuery } from '@tanstack/react-query';
import { paymentsApi } from '../payments/api';
import { PaymentMethod } from '../payments/PaymentMethod';

/**
 * The card that paid an order (`Visa •••• 4242`), from its latest succeeded payment; a
 * subscription shows the card of its latest order. A dash until a payment names one.
 */
export function PaidWith({ orderId }: { orderId: string | null | undefined }) {
  const payment = useQuery({
    queryKey: ['payments', 'of order', orderId],
    queryFn: async ({ signal }) => {
      const page = await paymentsApi.list(
        {
          page: 1,
          limit: 1,
          sorting: ['-created_at'],
          order_id: orderId ?? '',
          status: 'succeeded',
        },
        signal,
      );
      return page.items[0] ?? null;
    },
    enabled: Boolean(orderId),
  });
  if (!orderId || payment.data === null) return <>—</>;
  if (!payment.data) return <span className="muted">…</span>;
  return <PaymentMethod payment={payment.data} />;
}
