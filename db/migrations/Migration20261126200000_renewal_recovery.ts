import { Migration } from '@mikro-orm/migrations';

/**
 * What finance reads of a failed renewal's end: when a charge was last tried, whether (and by
 * whom) the renewal was paid after failing, and that dunning ended a subscription.
 */
export class Migration20261126200000_renewal_recovery extends Migration {
  override name = 'Migration20261126200000_renewal_recovery';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "subscriptions" add "last_payment_attempt_at" timestamptz null, add "recovered_at" timestamptz null, add "recovered_by" text null, add "cancellation_cause" text null;`,
    );
    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_recovered_by_check" check ("recovered_by" in ('customer', 'finance', 'dunning'));`,
    );
    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_cancellation_cause_check" check ("cancellation_cause" in ('payment_failed'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "subscriptions" drop constraint "subscriptions_recovered_by_check", drop constraint "subscriptions_cancellation_cause_check";`,
    );
    this.addSql(
      `alter table "subscriptions" drop column "last_payment_attempt_at", drop column "recovered_at", drop column "recovered_by", drop column "cancellation_cause";`,
    );
  }
}
