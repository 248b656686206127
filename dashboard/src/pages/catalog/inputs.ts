/**
 * How the catalog forms read what was typed into the values the API takes. Forms keep text as
 * typed (nothing is lost when the API refuses it); these turn it into numbers and instants.
 */

/** A typed number, or null when nothing was typed; text that is no number stays NaN, which
 * the API's schema refuses at its field. */
export function numberOrNull(text: string): number | null {
  const trimmed = text.trim();
  return trimmed ? Number(trimmed) : null;
}

/** Text for a number field, empty for none. */
export const numberText = (value: number | null | undefined) =>
  value == null ? '' : String(value);

/** A `datetime-local` input's value (viewer's zone) as an ISO instant, or null when empty. */
export function instantOf(localText: string): string | null {
  if (!localText) return null;
  const date = new Date(localText);
  return Number.isNaN(date.getTime()) ? localText : date.toISOString();
}

/** An ISO instant as a `datetime-local` value in the viewer's zone. */
export function localTextOf(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Null for empty text: the API takes null as "none" (a code, a label, a success URL). */
export const textOrNull = (text: string) => (text.trim() ? text.trim() : null);

/** The first error at `prefix` or below it (`products`, `products.2`). */
export const errorUnder = (errors: Record<string, string>, prefix: string) =>
  Object.entries(errors).find(([key]) => key === prefix || key.startsWith(`${prefix}.`))?.[1];
