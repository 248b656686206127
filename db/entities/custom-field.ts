import { defineEntity, p } from '@mikro-orm/core';
import { customFieldTypes } from '../../domain/custom-field-values.ts';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { Organization } from './organization.ts';

/** The per-type settings of a custom field, keyed as on the wire (snake_case); unset keys absent. */
export type CustomFieldProperties = Record<string, unknown>;

/** A field sellers add to checkouts; `slug` keys its value in `custom_field_data`. */
const CustomFieldSchema = defineEntity({
  name: 'CustomField',
  tableName: 'custom_fields',
  uniques: [{ properties: ['organization', 'slug'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    type: p.enum(customFieldTypes),
    slug: p.string(),
    name: p.string(),
    properties: p.json<CustomFieldProperties>(),
    metadata: metadataColumn(),
    ...commerceTimestampColumns(),
  },
});

export class CustomField extends CustomFieldSchema.class {}
CustomFieldSchema.setClass(CustomField);
