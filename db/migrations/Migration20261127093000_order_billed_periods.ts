import { Migration } from '@mikro-orm/migrations';

/**
 * What a subscription order billed, for its invoice (issue 22): the period it pays for (a
 * renewal's next period, by the subscription's clock; null for orders made before and for
 * one-time purchases and plan changes) and each line's seats (null when not seat-based).
 * Seats are backfilled from the line's label, which names them (`Team plan (5 seats)`).
 */
export class Migration20261127093000_order_billed_periods extends Migration {
  override name = 'Migration20261127093000_order_billed_periods';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "orders" add column "billing_period_start" timestamptz null, add column "billing_period_end" timestamptz null;`,
    );
    this.addSql(`alter table "order_items" add column "seats" int null;`);
    this.addSql(
      `update "order_items" oi set "seats" = substring(oi."label" from '\\((\\d+) seats?\\)')::int
       from "product_prices" pp
       where pp."id" = oi."product_price_id" and pp."amount_type" = 'seat_based'
         and not oi."proration";`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "orders" drop column "billing_period_start", drop column "billing_period_end";`,
    );
    this.addSql(`alter table "order_items" drop column "seats";`);
  }
}
