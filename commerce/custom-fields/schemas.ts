import { z } from 'zod';
import type { CustomField } from '../../db/entities/index.ts';
import type { CustomFieldType } from '../../domain/custom-field-values.ts';
import { metadataInput } from '../../domain/metadata.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull, metadataWireSchema } from '../wire.ts';

export const customFieldSortFields = ['created_at', 'slug', 'name', 'type'] as const;

/** The key of a field's value in `custom_field_data`: lower-cased, letters, digits, - and _. */
const slugInput = z
  .string()
  .toLowerCase()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9-_]+$/, 'Slug can only contain ASCII letters, numbers, hyphens and underscores.');
const nameInput = z.string().min(1).max(255);
const formText = z.string().min(1).optional();
const formProperties = {
  form_label: formText,
  form_help_text: formText,
  form_placeholder: formText,
};

/** A lower bound above its upper bound answers 422 at the lower bound's key. */
function boundsInOrder<Key extends string>(lower: Key, upper: Key) {
  return (properties: Partial<Record<Key, number>>, ctx: z.RefinementCtx) => {
    const low = properties[lower];
    const high = properties[upper];
    if (low !== undefined && high !== undefined && low > high) {
      ctx.addIssue({
        code: 'custom',
        path: [lower],
        message: `${lower} must be less than or equal to ${upper}.`,
      });
    }
  };
}

const comparableProperties = z
  .object({ ...formProperties, ge: z.number().int().optional(), le: z.number().int().optional() })
  .superRefine(boundsInOrder('ge', 'le'));

/** The `properties` of each field type, as Polar accepts them (unknown keys dropped). */
const propertiesInputs = {
  text: z
    .object({
      ...formProperties,
      textarea: z.boolean().optional(),
      min_length: z.number().int().min(0).optional(),
      max_length: z.number().int().min(0).optional(),
    })
    .superRefine(boundsInOrder('min_length', 'max_length')),
  number: comparableProperties,
  // Dates: ge and le are unix timestamps (seconds).
  date: comparableProperties,
  checkbox: z.object(formProperties),
  select: z.object({
    ...formProperties,
    options: z
      .array(z.object({ value: z.string().min(1), label: z.string().min(1) }))
      .min(1)
      .superRefine((options, ctx) => {
        const seen = new Set<string>();
        options.forEach((option, index) => {
          if (seen.has(option.value)) {
            ctx.addIssue({
              code: 'custom',
              path: [index, 'value'],
              message: 'Option values must be unique.',
            });
          }
          seen.add(option.value);
        });
      }),
  }),
} satisfies Record<CustomFieldType, z.ZodType>;

const createShape = <Type extends CustomFieldType, Properties extends z.ZodType>(
  type: Type,
  properties: Properties,
) =>
  z.object({
    type: z.literal(type),
    slug: slugInput,
    name: nameInput,
    properties,
    metadata: metadataInput.optional(),
    organization_id: z.uuid().nullable().optional(),
  });

/** Polar's `CustomFieldCreate`: one shape per type, told apart by `type`. */
export const customFieldCreateInput = z.discriminatedUnion('type', [
  createShape('text', propertiesInputs.text),
  createShape('number', propertiesInputs.number),
  createShape('date', propertiesInputs.date),
  createShape('checkbox', propertiesInputs.checkbox),
  createShape('select', propertiesInputs.select),
]);
export type CustomFieldCreateInput = z.infer<typeof customFieldCreateInput>;

const updateShape = <Type extends CustomFieldType, Properties extends z.ZodType>(
  type: Type,
  properties: Properties,
) =>
  z.object({
    type: z.literal(type),
    slug: slugInput.nullable().optional(),
    name: nameInput.nullable().optional(),
    properties: properties.nullable().optional(),
    metadata: metadataInput.optional(),
  });

/**
 * Polar's `CustomFieldUpdate`: `type` names the field's (unchangeable) type and picks the shape
 * of `properties`, which replace the stored ones whole. Null or absent keys keep their value.
 */
export const customFieldUpdateInput = z.discriminatedUnion('type', [
  updateShape('text', propertiesInputs.text),
  updateShape('number', propertiesInputs.number),
  updateShape('date', propertiesInputs.date),
  updateShape('checkbox', propertiesInputs.checkbox),
  updateShape('select', propertiesInputs.select),
]);
export type CustomFieldUpdateInput = z.infer<typeof customFieldUpdateInput>;

export const customFieldListQuery = z.object({ query: z.string().nullable().optional() }).loose();

/** Each type's `properties` on the wire (Polar's `CustomField*Properties`): the set keys only. */
const formPropertiesWire = {
  form_label: z.string().optional(),
  form_help_text: z.string().optional(),
  form_placeholder: z.string().optional(),
};
const comparablePropertiesWire = {
  ...formPropertiesWire,
  ge: z.int().optional(),
  le: z.int().optional(),
};
const propertiesWireSchemas = {
  text: z
    .object({
      ...formPropertiesWire,
      textarea: z.boolean().optional(),
      min_length: z.int().optional(),
      max_length: z.int().optional(),
    })
    .meta({ id: 'CustomFieldTextProperties' }),
  number: z.object(comparablePropertiesWire).meta({ id: 'CustomFieldNumberProperties' }),
  date: z.object(comparablePropertiesWire).meta({ id: 'CustomFieldDateProperties' }),
  checkbox: z.object(formPropertiesWire).meta({ id: 'CustomFieldCheckboxProperties' }),
  select: z
    .object({
      ...formPropertiesWire,
      options: z.array(z.object({ value: z.string(), label: z.string() })),
    })
    .meta({ id: 'CustomFieldSelectProperties' }),
} satisfies Record<CustomFieldType, z.ZodObject>;

/** A field's properties as the SDK reads them: unset keys omitted, never null. */
function propertiesWire(type: CustomFieldType, properties: Record<string, unknown>) {
  const wire: Record<string, unknown> = {};
  for (const key of Object.keys(propertiesWireSchemas[type].shape)) {
    const value = properties[key];
    if (value !== undefined && value !== null) wire[key] = value;
  }
  if (type === 'select') wire.options ??= [];
  return wire;
}

const customFieldCommonWire = {
  id: z.uuid(),
  created_at: dateTimeWireSchema,
  modified_at: dateTimeWireSchema.nullable(),
  metadata: metadataWireSchema,
  slug: z.string(),
  name: z.string(),
  organization_id: z.uuid(),
};

const customFieldOfType = <Type extends CustomFieldType>(type: Type) =>
  z.object({
    ...customFieldCommonWire,
    type: z.literal(type),
    properties: propertiesWireSchemas[type],
  });

/** Polar's `CustomField`: one shape per type, `properties` holding the type's keys that are set. */
export const customFieldWireSchema = z
  .discriminatedUnion('type', [
    customFieldOfType('text').meta({ id: 'CustomFieldText' }),
    customFieldOfType('number').meta({ id: 'CustomFieldNumber' }),
    customFieldOfType('date').meta({ id: 'CustomFieldDate' }),
    customFieldOfType('checkbox').meta({ id: 'CustomFieldCheckbox' }),
    customFieldOfType('select').meta({ id: 'CustomFieldSelect' }),
  ])
  .meta({ id: 'CustomField' });

/** A custom field as /v1 answers it (Polar's `CustomField` union, discriminated by `type`). */
export function customFieldWire(field: CustomField): z.input<typeof customFieldWireSchema> {
  return {
    id: field.id,
    created_at: isoDateTime(field.createdAt),
    modified_at: isoDateTimeOrNull(field.modifiedAt),
    metadata: field.metadata,
    type: field.type,
    slug: field.slug,
    name: field.name,
    organization_id: field.organization.id,
    properties: propertiesWire(field.type, field.properties),
    // The stored properties were validated against the type's input shape when written.
  } as z.input<typeof customFieldWireSchema>;
}
export type CustomFieldWire = ReturnType<typeof customFieldWire>;
