/** Metadata on one line (`tokens: 12, model: gpt`), for a table cell; a dash when empty. */
export function MetadataSummary({ metadata }: { metadata: Record<string, unknown> }) {
  const entries = Object.entries(metadata);
  if (entries.length === 0) return <span className="muted">—</span>;
  return <>{entries.map(([name, value]) => `${name}: ${String(value)}`).join(', ')}</>;
}
