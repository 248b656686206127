import { defineEntity, p } from '@mikro-orm/core';
import { customerOAuthPlatforms } from '../../domain/benefit-types.ts';
import { Checkout } from './checkout.ts';
import { commerceTimestampColumns, idColumn } from './columns.ts';
import { Customer } from './customer.ts';

/**
 * A customer's account on Discord or GitHub, linked so that discord and github_repository
 * grants know whom to add. The access token is the customer's (Discord's guilds.join needs it).
 */
const CustomerOAuthAccountSchema = defineEntity({
  name: 'CustomerOAuthAccount',
  tableName: 'customer_oauth_accounts',
  uniques: [{ properties: ['customer', 'platform'] }],
  properties: {
    id: idColumn(),
    customer: () => p.manyToOne(Customer).deleteRule('cascade'),
    platform: p.enum(customerOAuthPlatforms),
    accountId: p.string(),
    accountUsername: p.string().nullable(),
    accessToken: p.text().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class CustomerOAuthAccount extends CustomerOAuthAccountSchema.class {}
CustomerOAuthAccountSchema.setClass(CustomerOAuthAccount);

/**
 * A customer's session on the customer portal (`polar_cst_…`, handed out by a confirmed
 * checkout and by the customer-sessions API). Only its SHA-256 is stored. A session handed out
 * by a checkout's confirm opens the portal only once that `checkout` succeeded.
 */
const CustomerSessionSchema = defineEntity({
  name: 'CustomerSession',
  tableName: 'customer_sessions',
  properties: {
    id: idColumn(),
    customer: () => p.manyToOne(Customer).deleteRule('cascade').index(),
    checkout: () => p.manyToOne(Checkout).nullable().deleteRule('cascade'),
    /** Hex SHA-256 of the whole token. */
    tokenHash: p.string().unique(),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class CustomerSession extends CustomerSessionSchema.class {}
CustomerSessionSchema.setClass(CustomerSession);

/**
 * A one-time link that opens a portal session for `customer`: mailed to the customer's address,
 * so opening it proves the holder reads that mail. Only its SHA-256 is stored; `usedAt` makes it
 * single use. `returnTo` is the portal path the session opens on.
 */
const CustomerSignInLinkSchema = defineEntity({
  name: 'CustomerSignInLink',
  tableName: 'customer_sign_in_links',
  properties: {
    id: idColumn(),
    customer: () => p.manyToOne(Customer).deleteRule('cascade').index(),
    /** Hex SHA-256 of the whole token. */
    tokenHash: p.string().unique(),
    /** The address the link was mailed to: it opens nothing once the customer's address changed. */
    email: p.string(),
    returnTo: p.text().nullable(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class CustomerSignInLink extends CustomerSignInLinkSchema.class {}
CustomerSignInLinkSchema.setClass(CustomerSignInLink);
