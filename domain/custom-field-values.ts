/**
 * Rules about the values customers give to a seller's custom fields (`custom_field_data` of
 * checkouts, orders and subscriptions): each value checked against its field's type and
 * properties, as Polar does. Plain functions over plain values.
 */

/** The kinds of field a seller can add to checkouts. */
export const customFieldTypes = ['text', 'number', 'date', 'checkbox', 'select'] as const;
export type CustomFieldType = (typeof customFieldTypes)[number];

/**
 * A custom field as far as its values are concerned: its properties keyed as on the wire
 * (`min_length`, `max_length`, `ge`, `le`, `options`), as stored. A stored row fits as it is.
 */
export interface CustomFieldRule {
  slug: string;
  type: 'text' | 'number' | 'date' | 'checkbox' | 'select';
  properties: Readonly<Record<string, unknown>>;
}

/** A numeric property (a bound), or undefined when unset. */
function bound(properties: CustomFieldRule['properties'], key: string): number | undefined {
  const value = properties[key];
  return typeof value === 'number' ? value : undefined;
}

/** The values of a select field's options. */
function optionValues(properties: CustomFieldRule['properties']): string[] {
  const options = Array.isArray(properties.options) ? (properties.options as unknown[]) : [];
  return options.flatMap((option) => {
    const value = (option as { value?: unknown } | null)?.value;
    return typeof value === 'string' ? [value] : [];
  });
}

/** A stored value: text, a number, a date (`YYYY-MM-DD`), a checkbox, or null when not given. */
export type CustomFieldValue = string | number | boolean | null;

export type CustomFieldValueCheck =
  | { ok: true; value: CustomFieldValue }
  | { ok: false; message: string };

const accepted = (value: CustomFieldValue): CustomFieldValueCheck => ({ ok: true, value });
const refused = (message: string): CustomFieldValueCheck => ({ ok: false, message });

const isoDate = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/;
const secondsPerDay = 86_400;

/**
 * The calendar day written in a `YYYY-MM-DD` date or an ISO datetime (the date the customer
 * picked, whatever the offset), as a day number since 1970-01-01; null when it is no real date.
 */
function calendarDay(value: string): number | null {
  const match = isoDate.exec(value);
  if (!match) return null;
  if (match[0].endsWith('T') && Number.isNaN(Date.parse(value))) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  // 2025-02-30 rolls over to March: only a date that round-trips is real.
  const real = date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real ? date.getTime() / 1000 / secondsPerDay : null;
}

const dayOfTimestamp = (seconds: number) => Math.floor(seconds / secondsPerDay);
const dateOfDay = (day: number) => new Date(day * secondsPerDay * 1000).toISOString().slice(0, 10);

/** A whole number as a number or as its decimal text (forms send text). */
function wholeNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) return Number(value);
  return null;
}

/**
 * Checks one submitted value. Absent (`undefined`, `null`, `''`) answers null (`false` for a
 * checkbox) unless `required`. Text respects min/max length; numbers are whole and within
 * ge/le; dates (`YYYY-MM-DD` or an ISO datetime, kept as the day written) fall between the days of
 * the ge/le timestamps; a select value is one of its options; a required checkbox must be ticked.
 */
export function checkCustomFieldValue(
  field: CustomFieldRule,
  required: boolean,
  submitted: unknown,
): CustomFieldValueCheck {
  const { properties } = field;
  const [ge, le] = [bound(properties, 'ge'), bound(properties, 'le')];
  if (submitted === undefined || submitted === null || submitted === '') {
    if (required) return refused('Field required');
    return accepted(field.type === 'checkbox' ? false : null);
  }
  switch (field.type) {
    case 'text': {
      if (typeof submitted !== 'string') return refused('Input should be a valid string');
      const [min, max] = [bound(properties, 'min_length'), bound(properties, 'max_length')];
      if (min !== undefined && submitted.length < min) {
        return refused(`String should have at least ${min} characters`);
      }
      if (max !== undefined && submitted.length > max) {
        return refused(`String should have at most ${max} characters`);
      }
      return accepted(submitted);
    }
    case 'number': {
      const number = wholeNumber(submitted);
      if (number === null) return refused('Input should be a valid integer');
      if (ge !== undefined && number < ge) {
        return refused(`Input should be greater than or equal to ${ge}`);
      }
      if (le !== undefined && number > le) {
        return refused(`Input should be less than or equal to ${le}`);
      }
      return accepted(number);
    }
    case 'date': {
      const day = typeof submitted === 'string' ? calendarDay(submitted) : null;
      if (day === null) return refused('Input should be a valid date');
      if (ge !== undefined && day < dayOfTimestamp(ge)) {
        return refused(`Input should be greater than or equal to ${dateOfDay(dayOfTimestamp(ge))}`);
      }
      if (le !== undefined && day > dayOfTimestamp(le)) {
        return refused(`Input should be less than or equal to ${dateOfDay(dayOfTimestamp(le))}`);
      }
      return accepted(dateOfDay(day));
    }
    case 'checkbox': {
      if (typeof submitted !== 'boolean') return refused('Input should be a valid boolean');
      if (required && !submitted) return refused('Input should be true');
      return accepted(submitted);
    }
    case 'select': {
      const values = optionValues(properties);
      if (typeof submitted !== 'string' || !values.includes(submitted)) {
        return refused(`Input should be ${values.map((value) => `'${value}'`).join(' or ')}`);
      }
      return accepted(submitted);
    }
  }
}

/** A custom field attached to a product or checkout link, required there or not. */
export interface AttachedCustomFieldRule {
  field: CustomFieldRule;
  required: boolean;
}

/**
 * Checks submitted `custom_field_data` against the attached fields: the answer holds every
 * attached slug with its checked value (keys of other fields are dropped, as Polar does) and
 * one issue per refused slug, in the fields' order.
 */
export function checkCustomFieldData(
  attached: readonly AttachedCustomFieldRule[],
  submitted: Record<string, unknown>,
): { data: Record<string, CustomFieldValue>; issues: { slug: string; message: string }[] } {
  const data: Record<string, CustomFieldValue> = {};
  const issues: { slug: string; message: string }[] = [];
  for (const { field, required } of attached) {
    const value = Object.hasOwn(submitted, field.slug) ? submitted[field.slug] : undefined;
    const check = checkCustomFieldValue(field, required, value);
    if (check.ok) data[field.slug] = check.value;
    else issues.push({ slug: field.slug, message: check.message });
  }
  return { data, issues };
}
