/** A card's expiry as Stripe gives it: the month (1–12) and the four-digit year. */
export interface CardExpiry {
  expMonth: number;
  expYear: number;
}

/** A card works through the last day of its expiry month: it stops at the next month's start (UTC). */
export const cardStopsWorkingAt = ({ expMonth, expYear }: CardExpiry): Date =>
  new Date(Date.UTC(expYear, expMonth, 1));

/** Whether the card no longer works at `instant` (a renewal charge's time). */
export const cardExpiresBefore = (card: CardExpiry, instant: Date): boolean =>
  cardStopsWorkingAt(card).getTime() <= instant.getTime();
