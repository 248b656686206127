/** `1250` → `12.50`, `-5` → `-0.05`: the exact decimal text of integer minor units, never a float. */
export function decimalAmount(minorUnits: number): string {
  const sign = minorUnits < 0 ? '-' : '';
  const absolute = Math.abs(minorUnits);
  return `${sign}${Math.trunc(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
}

/** `1250, 'usd'` → `$12.50`: amounts are integer minor units, formatted from their exact decimal text, never a float. */
export function formatMoney(minorUnits: number, currency: string): string {
  const decimal = decimalAmount(minorUnits);
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(decimal as Intl.StringNumericLiteral);
}
