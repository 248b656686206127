const formats = {
  datetime: { dateStyle: 'medium', timeStyle: 'short' },
  date: { dateStyle: 'medium' },
  /** With seconds: events a second apart (a workflow's history) stay apart. */
  seconds: { dateStyle: 'medium', timeStyle: 'medium' },
} satisfies Record<string, Intl.DateTimeFormatOptions>;

interface DateTimeProps {
  /** An ISO 8601 instant as the API answers it; null shows a dash. */
  value: string | null | undefined;
  format?: keyof typeof formats;
}

/** An instant in the viewer's time zone; the exact ISO value shows on hover. */
export function DateTime({ value, format = 'datetime' }: DateTimeProps) {
  if (!value) return <span className="muted">—</span>;
  const date = new Date(value);
  return (
    <time dateTime={date.toISOString()} title={date.toISOString()}>
      {date.toLocaleString(undefined, formats[format])}
    </time>
  );
}
