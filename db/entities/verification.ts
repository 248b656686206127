import { defineEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from './columns.ts';

/** A pending proof (email verification, password reset, account deletion) with its expiry. */
const VerificationSchema = defineEntity({
  name: 'Verification',
  tableName: 'verifications',
  properties: {
    id: idColumn(),
    identifier: p.string().index(),
    /** Hex SHA-256 of the token that was mailed; the token itself is never stored. */
    value: p.text(),
    expiresAt: p.datetime().index(),
    ...timestampColumns(),
  },
});

export class Verification extends VerificationSchema.class {}
VerificationSchema.setClass(Verification);
