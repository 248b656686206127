import { defineEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from './columns.ts';

/** A pending proof (email verification, password reset, account deletion, OAuth state) with its expiry. */
const VerificationSchema = defineEntity({
  name: 'Verification',
  tableName: 'verifications',
  properties: {
    id: idColumn(),
    /** `<kind>:<hex SHA-256 of the token>`: the token itself is never stored. */
    identifier: p.string().index(),
    /** What the token stands for: a user id, or JSON such as `{ userId, email }`. */
    value: p.text(),
    expiresAt: p.datetime().index(),
    ...timestampColumns(),
  },
});

export class Verification extends VerificationSchema.class {}
VerificationSchema.setClass(Verification);
