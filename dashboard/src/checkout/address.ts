import type { AddressField, BillingAddressFieldMode, CheckoutPublic } from './api';

export const addressFields: { key: AddressField; label: string; autoComplete: string }[] = [
  { key: 'line1', label: 'Address', autoComplete: 'address-line1' },
  { key: 'line2', label: 'Address line 2', autoComplete: 'address-line2' },
  { key: 'postal_code', label: 'Postal code', autoComplete: 'postal-code' },
  { key: 'city', label: 'City', autoComplete: 'address-level2' },
  { key: 'state', label: 'State / province', autoComplete: 'address-level1' },
];

/**
 * Which address fields to ask for: the server's answer for the country it holds; for another
 * country chosen since, the same rules (a full address for the US, for businesses or when the
 * seller requires it; a state for Canada; else the country alone).
 */
export function addressModes(
  checkout: CheckoutPublic & { require_billing_address?: boolean },
  country: string,
): Record<AddressField, BillingAddressFieldMode> {
  const server = checkout.billing_address_fields;
  if (server.country === 'disabled') return server;
  if (country === (checkout.customer_billing_address?.country ?? '')) return server;
  const full =
    Boolean(checkout.require_billing_address) || checkout.is_business_customer || country === 'US';
  const asked = full ? 'required' : 'disabled';
  return {
    country: 'required',
    line1: asked,
    line2: full ? 'optional' : 'disabled',
    postal_code: asked,
    city: asked,
    state: full || country === 'CA' ? 'required' : 'disabled',
  };
}

/** The address fields asked for, as typed (blank ones null); null when no country is. */
export function billingAddressOf(
  checkout: CheckoutPublic,
  address: Record<AddressField, string>,
): Partial<Record<AddressField, string | null>> | null {
  const modes = addressModes(checkout, address.country);
  return modes.country === 'disabled' || !address.country
    ? null
    : Object.fromEntries(
        (Object.keys(modes) as AddressField[])
          .filter((key) => modes[key] !== 'disabled')
          .map((key) => [key, address[key].trim() || null]),
      );
}
