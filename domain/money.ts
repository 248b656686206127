/** `1250, 'usd'` → `$12.50`: amounts are integer minor units, formatted from their exact decimal text, never a float. */
export function formatMoney(minorUnits: number, currency: string): string {
  const sign = minorUnits < 0 ? '-' : '';
  const absolute = Math.abs(minorUnits);
  const decimal = `${sign}${Math.trunc(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(decimal as Intl.StringNumericLiteral);
}
