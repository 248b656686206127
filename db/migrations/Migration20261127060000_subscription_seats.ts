import { Migration } from '@mikro-orm/migrations';

/**
 * A subscription's own seats (issue 22): what its seat-based price bills, changed by seat
 * updates. Backfilled from the checkout that bought the price (one seat when it chose none);
 * null for the subscriptions whose static price is not seat-based.
 */
export class Migration20261127060000_subscription_seats extends Migration {
  override name = 'Migration20261127060000_subscription_seats';

  override up(): void | Promise<void> {
    this.addSql(`alter table "subscriptions" add column "seats" int null;`);
    this.addSql(
      `update "subscriptions" s set "seats" = coalesce(
         (select c."seats" from "checkouts" c
          where c."id" = s."checkout_id" and c."product_price_id" = pp."id"), 1)
       from "subscription_prices" sp join "product_prices" pp on pp."id" = sp."product_price_id"
       where sp."subscription_id" = s."id" and pp."amount_type" = 'seat_based';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "subscriptions" drop column "seats";`);
  }
}
