import { defineEntity, p } from '@mikro-orm/core';
import { fileServices } from '../../domain/files.ts';
import { commerceTimestampColumns, idColumn } from './columns.ts';
import { Organization } from './organization.ts';

/**
 * A file a seller uploaded (downloadable, product media, avatar). The bytes live in the file
 * storage under `path`; this row is its catalog entry, uploaded once the parts are complete.
 */
const StoredFileSchema = defineEntity({
  name: 'StoredFile',
  tableName: 'files',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    name: p.string(),
    path: p.string(),
    mimeType: p.string(),
    size: p.bigint('number'),
    service: p.enum(fileServices),
    storageVersion: p.string().nullable(),
    checksumEtag: p.string().nullable(),
    checksumSha256Base64: p.string().nullable(),
    checksumSha256Hex: p.string().nullable(),
    lastModifiedAt: p.datetime().nullable(),
    version: p.string().nullable(),
    isUploaded: p.boolean().default(false),
    deletedAt: p.datetime().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class StoredFile extends StoredFileSchema.class {}
StoredFileSchema.setClass(StoredFile);
