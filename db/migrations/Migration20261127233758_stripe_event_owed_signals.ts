import { Migration } from '@mikro-orm/migrations';

/**
 * The signal a handled Stripe event owes a workflow (issue 18): kept on the event's claim until
 * Temporal has taken it, leased to its sender, so that it is sent after the commit and a
 * redelivery past the lease sends it again.
 */
export class Migration20261127233758_stripe_event_owed_signals extends Migration {
  override name = 'Migration20261127233758_stripe_event_owed_signals';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "processed_stripe_events" add column "owed_signal" jsonb null, add column "owed_signal_leased_until" timestamptz null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "processed_stripe_events" drop column "owed_signal", drop column "owed_signal_leased_until";`,
    );
  }
}
