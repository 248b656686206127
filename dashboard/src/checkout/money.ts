/**
 * Amounts are integer minor units (cents) everywhere; these turn them into text and back
 * without floating point.
 */

export { formatMoney } from '../../../domain/money.ts';

/** The amount typed in major units (`12`, `12.5`, `12.50`) as minor units; null when not one. */
export function parseMoneyInput(text: string): number | null {
  const match = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return null;
  const [, whole = '0', fraction = ''] = match;
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

/** Minor units as the text of an amount input (`1250` → `12.50`). */
export const moneyInputText = (minorUnits: number) =>
  `${Math.trunc(minorUnits / 100)}.${String(minorUnits % 100).padStart(2, '0')}`;
