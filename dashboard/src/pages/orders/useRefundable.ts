import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { fetchRefunds } from '../refunds/api';
import type { Order } from './api';

const pendingPollMs = 2_000;

/**
 * What is left to refund of the order, as the API counts it: the net amount less refunded and
 * pending refunds. A pending refund settles in its workflow, so the order's refunds are read
 * again while one is pending, and the order (with its refunds tables) each time one settles.
 */
export function useRefundable(orderId: string, order: Order | undefined) {
  const queryClient = useQueryClient();
  const refunds = useQuery({
    queryKey: ['refunds', 'of order', orderId],
    queryFn: ({ signal }) => fetchRefunds({ order_id: orderId, limit: 100 }, signal),
    refetchInterval: (query) =>
      query.state.data?.items.some((refund) => refund.status === 'pending') ? pendingPollMs : false,
  });
  const pending = refunds.data?.items.filter((refund) => refund.status === 'pending');
  const settledCount = refunds.data && refunds.data.items.length - (pending?.length ?? 0);
  const seenSettled = useRef(settledCount);
  useEffect(() => {
    const before = seenSettled.current;
    seenSettled.current = settledCount;
    if (before === undefined || settledCount === undefined || before === settledCount) return;
    queryClient.invalidateQueries({ queryKey: ['order', orderId] });
    queryClient.invalidateQueries({
      queryKey: ['refunds'],
      predicate: (query) => query.queryKey[1] !== 'of order',
    });
  }, [settledCount, orderId, queryClient]);

  if (!order || !pending) return null;
  const pendingAmount = pending.reduce((sum, refund) => sum + refund.amount, 0);
  return { amount: order.net_amount - order.refunded_amount - pendingAmount, pending };
}
