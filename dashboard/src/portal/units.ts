/** A meter's units as the customer reads them: grouped, at most two decimals (`1,234.5`). */
export const formatUnits = (units: number) =>
  units.toLocaleString('en-US', { maximumFractionDigits: 2 });

/**
 * What the customer's credits on a meter come to: units left, or units used beyond them; null
 * for a meter without credits (its usage is simply billed).
 */
export function creditStanding(meter: { credited_units: number; balance: number }): string | null {
  if (meter.credited_units === 0) return null;
  if (meter.balance >= 0) return `${formatUnits(meter.balance)} left`;
  return `${formatUnits(-meter.balance)} beyond your credits`;
}
