import type { ReactNode } from 'react';

export type Tone = 'ok' | 'info' | 'warning' | 'failed' | 'neutral';

// The API's statuses (orders, subscriptions, refunds, checkouts, workflows…) by how they read.
const tones: Record<string, Tone> = {
  active: 'ok',
  paid: 'ok',
  succeeded: 'ok',
  confirmed: 'ok',
  granted: 'ok',
  ready: 'ok',
  completed: 'ok',
  trialing: 'info',
  pending: 'info',
  open: 'info',
  running: 'info',
  draft: 'neutral',
  past_due: 'warning',
  incomplete: 'warning',
  partially_refunded: 'warning',
  degraded: 'warning',
  unpaid: 'failed',
  failed: 'failed',
  expired: 'neutral',
  canceled: 'neutral',
  revoked: 'neutral',
  refunded: 'neutral',
  terminated: 'failed',
  timed_out: 'failed',
};

interface StatusBadgeProps {
  /** An API status (`past_due`): its tone is looked up and its words shown (`past due`). */
  status?: string;
  /** Overrides the looked-up tone. */
  tone?: Tone;
  /** Overrides the shown words. */
  children?: ReactNode;
}

/** A status as a coloured pill; the words carry the meaning, the colour only repeats it. */
export function StatusBadge({ status = '', tone, children }: StatusBadgeProps) {
  const shown = tone ?? tones[status.toLowerCase()] ?? 'neutral';
  return <span className={`badge badge-${shown}`}>{children ?? status.replaceAll('_', ' ')}</span>;
}
