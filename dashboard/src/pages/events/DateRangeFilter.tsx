import { useQueryState } from '../../router';

/** The URL query names of the range: days (`2026-11-27`), as the date inputs write them. */
const fromName = 'from';
const toName = 'to';

/**
 * A list filter by day range, kept in the URL as `from` and `to` (both included, in the
 * viewer's time zone).
 */
export function DateRangeFilter() {
  const [params, setParams] = useQueryState();
  const day = (name: string, label: string) => (
    <label htmlFor={`filter-${name}`}>
      {label}{' '}
      <input
        id={`filter-${name}`}
        type="date"
        value={params.get(name) ?? ''}
        onChange={(event) => setParams({ [name]: event.target.value, page: null })}
      />
    </label>
  );
  return (
    <>
      {day(fromName, 'From')}
      {day(toName, 'To')}
    </>
  );
}

/** Local midnight starting `day` (`2026-11-27`), or null when it is not a day. */
function midnightOf(day: string | null): Date | null {
  const date = new Date(`${day}T00:00`);
  return day && !Number.isNaN(date.getTime()) ? date : null;
}

/**
 * The API's `start_timestamp`/`end_timestamp` (both included) of the URL's range: from the first
 * day's midnight to the last millisecond before the midnight after the last day.
 */
export function dateRangeScope(params: URLSearchParams): Record<string, string> {
  const from = midnightOf(params.get(fromName));
  const to = midnightOf(params.get(toName));
  const scope: Record<string, string> = {};
  if (from) scope.start_timestamp = from.toISOString();
  if (to) {
    to.setDate(to.getDate() + 1);
    scope.end_timestamp = new Date(to.getTime() - 1).toISOString();
  }
  return scope;
}
