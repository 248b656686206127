import { useEffect, useState } from 'react';
import '../catalog/catalog.css';

const shownMs = 2000;

/** Copies `url` to the clipboard and says so (politely, for screen readers too). */
export function CopyUrlButton({ url, label = 'Copy URL' }: { url: string; label?: string }) {
  const [outcome, setOutcome] = useState<'copied' | 'failed' | null>(null);
  useEffect(() => {
    if (!outcome) return;
    const timer = setTimeout(() => setOutcome(null), shownMs);
    return () => clearTimeout(timer);
  }, [outcome]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setOutcome('copied');
    } catch {
      // No clipboard access (an insecure origin, a refused permission): the URL stays visible.
      setOutcome('failed');
    }
  };
  return (
    <span>
      <button type="button" className="button button-quiet" onClick={copy}>
        {label}
      </button>{' '}
      <span aria-live="polite" className={outcome === 'failed' ? 'field-error' : 'copied'}>
        {outcome === 'copied'
          ? 'Copied'
          : outcome === 'failed'
            ? 'Copy failed: select the URL'
            : ''}
      </span>
    </span>
  );
}
