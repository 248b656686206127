import { defineEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from './columns.ts';
import { User } from './user.ts';

/** A way to sign in as a user: the `credential` provider (password) or a social provider. */
const AccountSchema = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  uniques: [{ properties: ['providerId', 'accountId'] }],
  properties: {
    id: idColumn(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    providerId: p.string(),
    /** The user's id at the provider; the user id itself for `credential`. */
    accountId: p.string(),
    /** Password hash (scrypt), only for the `credential` provider. */
    password: p.text().nullable(),
    accessToken: p.text().nullable(),
    refreshToken: p.text().nullable(),
    idToken: p.text().nullable(),
    accessTokenExpiresAt: p.datetime().nullable(),
    refreshTokenExpiresAt: p.datetime().nullable(),
    /** Comma-separated, as the providers grant them. */
    scope: p.text().nullable(),
    ...timestampColumns(),
  },
});

export class Account extends AccountSchema.class {}
AccountSchema.setClass(Account);
