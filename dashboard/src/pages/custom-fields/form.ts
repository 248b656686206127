/**
 * The custom field form's values and the CustomFieldCreate/CustomFieldUpdate body they make,
 * checked first with the API's own schemas. Properties are kept as typed for every type, so
 * switching the type back and forth loses nothing; the body carries only the chosen type's.
 */
import {
  customFieldCreateInput,
  customFieldUpdateInput,
} from '../../../../commerce/custom-fields/schemas.ts';
import { numberOrNull, numberText } from '../catalog/inputs';
import type { CustomField, CustomFieldType } from './api';

export interface SelectOption {
  value: string;
  label: string;
}

export interface PropertiesDraft {
  form_label: string;
  form_help_text: string;
  form_placeholder: string;
  textarea: boolean;
  min_length: string;
  max_length: string;
  /** Numbers as typed; for a date field, `YYYY-MM-DD`. */
  ge: string;
  le: string;
  options: SelectOption[];
}

export interface CustomFieldFormValues {
  type: CustomFieldType;
  slug: string;
  name: string;
  properties: PropertiesDraft;
}

/** Date bounds travel as unix seconds (midnight UTC of the day). */
const dayText = (seconds: unknown) =>
  typeof seconds === 'number' ? new Date(seconds * 1000).toISOString().slice(0, 10) : '';
const daySeconds = (text: string) => (text ? Date.parse(text) / 1000 : undefined);

export function initialValues(field?: CustomField): CustomFieldFormValues {
  const stored = (field?.properties ?? {}) as Record<string, unknown>;
  const text = (key: string) => (typeof stored[key] === 'string' ? (stored[key] as string) : '');
  const number = (key: string) =>
    numberText(typeof stored[key] === 'number' ? (stored[key] as number) : null);
  return {
    type: field?.type ?? 'text',
    slug: field?.slug ?? '',
    name: field?.name ?? '',
    properties: {
      form_label: text('form_label'),
      form_help_text: text('form_help_text'),
      form_placeholder: text('form_placeholder'),
      textarea: stored.textarea === true,
      min_length: number('min_length'),
      max_length: number('max_length'),
      ge: field?.type === 'date' ? dayText(stored.ge) : number('ge'),
      le: field?.type === 'date' ? dayText(stored.le) : number('le'),
      options: (stored.options as SelectOption[] | undefined) ?? [{ value: '', label: '' }],
    },
  };
}

/** An optional number: absent when empty (the API has no null for these). */
const optionalNumber = (text: string) => numberOrNull(text) ?? undefined;
const optionalText = (text: string) => text.trim() || undefined;

function propertiesBody(type: CustomFieldType, draft: PropertiesDraft) {
  const form = {
    form_label: optionalText(draft.form_label),
    form_help_text: optionalText(draft.form_help_text),
    form_placeholder: optionalText(draft.form_placeholder),
  };
  switch (type) {
    case 'text':
      return {
        ...form,
        textarea: draft.textarea,
        min_length: optionalNumber(draft.min_length),
        max_length: optionalNumber(draft.max_length),
      };
    case 'number':
      return { ...form, ge: optionalNumber(draft.ge), le: optionalNumber(draft.le) };
    case 'date':
      return { ...form, ge: daySeconds(draft.ge), le: daySeconds(draft.le) };
    case 'checkbox':
      return form;
    case 'select':
      return { ...form, options: draft.options };
  }
}

export const customFieldBody = (values: CustomFieldFormValues) => ({
  type: values.type,
  slug: values.slug,
  name: values.name,
  properties: propertiesBody(values.type, values.properties),
});

/** The API's own schema, run on the body the values make. */
export const customFieldFormSchema = (creating: boolean) => ({
  safeParse: (values: unknown) =>
    (creating ? customFieldCreateInput : customFieldUpdateInput).safeParse(
      customFieldBody(values as CustomFieldFormValues),
    ),
});
