import { useQuery } from '@tanstack/react-query';
import { fetchCreditNoteUrl, type Refund } from './api';

/**
 * A succeeded refund's credit note: its number, opening the HTML view, and its PDF, both by the
 * signed link that opens without signing in (as the order's invoice link).
 */
export function CreditNoteLinks({ refund }: { refund: Refund }) {
  const number = refund.credit_note_number;
  const link = useQuery({
    queryKey: ['refunds', refund.id, 'credit-note'],
    queryFn: () => fetchCreditNoteUrl(refund.id),
    enabled: number !== null,
  });
  if (number === null) return <span className="muted">None</span>;
  if (link.isError) return <span title={link.error.message}>{number} (link unavailable)</span>;
  if (!link.data) return <span className="muted">{number}…</span>;
  return (
    <>
      <a href={link.data} target="_blank" rel="noreferrer">
        {number}
      </a>{' '}
      <a
        href={`${link.data}&format=pdf`}
        target="_blank"
        rel="noreferrer"
        aria-label={`${number} as PDF`}
      >
        PDF
      </a>
    </>
  );
}
