/**
 * What the buyer typed, kept for this browser tab (sessionStorage) under the checkout's id, so
 * a reload keeps it. Only what the server does not hold until the confirm: the buyer's details,
 * address, custom fields and test card; never a real card (Stripe Elements keeps that).
 */
import type { FormValues } from './form';

const draftKey = (checkoutId: string) => `tollgate.checkout.${checkoutId}.draft`;

const textFields = ['email', 'name', 'billingName', 'taxId', 'paymentMethod'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `values` with what a stored draft holds of the right type laid over them; anything else in
 * it (another version's fields, a hand-edited value) is ignored.
 */
export function withDraft(values: FormValues, draft: unknown): FormValues {
  if (!isRecord(draft)) return values;
  const merged: FormValues = { ...values, address: { ...values.address } };
  for (const field of textFields) {
    const typed = draft[field];
    if (typeof typed === 'string') merged[field] = typed;
  }
  if (isRecord(draft.address)) {
    for (const key of Object.keys(merged.address) as (keyof FormValues['address'])[]) {
      const typed = draft.address[key];
      if (typeof typed === 'string') merged.address[key] = typed;
    }
  }
  if (isRecord(draft.customFields)) {
    const fields = { ...values.customFields };
    for (const [slug, value] of Object.entries(draft.customFields)) {
      if (['string', 'number', 'boolean'].includes(typeof value) || value === null) {
        fields[slug] = value as FormValues['customFields'][string];
      }
    }
    merged.customFields = fields;
  }
  return merged;
}

/** The part of the values a draft keeps. */
export function draftOf(values: FormValues) {
  const { email, name, billingName, taxId, paymentMethod, address, customFields } = values;
  return { email, name, billingName, taxId, paymentMethod, address, customFields };
}

/** `values` with the tab's draft of this checkout laid over them (none: as they are). */
export function restoreDraft(checkoutId: string, values: FormValues): FormValues {
  try {
    const stored = sessionStorage.getItem(draftKey(checkoutId));
    return stored ? withDraft(values, JSON.parse(stored)) : values;
  } catch {
    // Storage disabled (private mode) or a damaged draft: start from the server's values.
    return values;
  }
}

export function saveDraft(checkoutId: string, values: FormValues) {
  try {
    sessionStorage.setItem(draftKey(checkoutId), JSON.stringify(draftOf(values)));
  } catch {
    // Storage disabled or full: the form still works, it just does not survive a reload.
  }
}

/** Forgets the draft once the checkout is paid: nothing typed lingers in the tab. */
export function forgetDraft(checkoutId: string) {
  try {
    sessionStorage.removeItem(draftKey(checkoutId));
  } catch {
    // Nothing was stored.
  }
}
