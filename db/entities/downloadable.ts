import { defineEntity, p } from '@mikro-orm/core';
import { Benefit } from './benefit.ts';
import { commerceTimestampColumns, idColumn } from './columns.ts';
import { Customer } from './customer.ts';
import { StoredFile } from './stored-file.ts';

export const downloadableStatuses = ['granted', 'revoked'] as const;
export type DownloadableStatus = (typeof downloadableStatuses)[number];

/** A file a downloadables grant lets one customer download (through signed, expiring URLs). */
const DownloadableSchema = defineEntity({
  name: 'Downloadable',
  tableName: 'downloadables',
  uniques: [{ properties: ['customer', 'benefit', 'file'] }],
  properties: {
    id: idColumn(),
    customer: () => p.manyToOne(Customer).deleteRule('cascade'),
    benefit: () => p.manyToOne(Benefit).deleteRule('cascade').index(),
    file: () => p.manyToOne(StoredFile).deleteRule('cascade').index(),
    status: p.enum(downloadableStatuses),
    downloaded: p.integer().default(0),
    lastDownloadedAt: p.datetime().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class Downloadable extends DownloadableSchema.class {}
DownloadableSchema.setClass(Downloadable);
