import { useState } from 'react';

/** Copies `text` to the clipboard and says so for a moment (politely, to screen readers too). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(text);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <>
      <button type="button" className="button" onClick={copy}>
        {label}
      </button>
      <span className="copied" aria-live="polite">
        {copied ? 'Copied' : ''}
      </span>
    </>
  );
}
