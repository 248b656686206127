import { defineEntity, p } from '@mikro-orm/core';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { Discount } from './discount.ts';
import { Organization } from './organization.ts';
import { Product, recurringIntervals } from './product.ts';

/** A shareable link that opens a new checkout for its products each time it is followed. */
const CheckoutLinkSchema = defineEntity({
  name: 'CheckoutLink',
  tableName: 'checkout_links',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    /** Public: it is the link's URL path, not a credential. */
    clientSecret: p.string().unique(),
    label: p.string().nullable(),
    successUrl: p.text().nullable(),
    allowDiscountCodes: p.boolean().default(true),
    requireBillingAddress: p.boolean().default(false),
    discount: () => p.manyToOne(Discount).nullable().deleteRule('set null'),
    trialInterval: p.enum(recurringIntervals).nullable(),
    trialIntervalCount: p.integer().nullable(),
    metadata: metadataColumn(),
    deletedAt: p.datetime().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class CheckoutLink extends CheckoutLinkSchema.class {}
CheckoutLinkSchema.setClass(CheckoutLink);

/** A product offered by a checkout link, in order (the first is preselected). */
const CheckoutLinkProductSchema = defineEntity({
  name: 'CheckoutLinkProduct',
  tableName: 'checkout_link_products',
  uniques: [{ properties: ['checkoutLink', 'product'] }],
  properties: {
    id: idColumn(),
    checkoutLink: () => p.manyToOne(CheckoutLink).deleteRule('cascade').index(),
    product: () => p.manyToOne(Product).deleteRule('cascade').index(),
    order: p.integer(),
  },
});

export class CheckoutLinkProduct extends CheckoutLinkProductSchema.class {}
CheckoutLinkProductSchema.setClass(CheckoutLinkProduct);
