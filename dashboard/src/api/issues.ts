/**
 * Validation messages a seller can read. The API (and the forms' own zod check) word a refusal
 * as zod does: "Too small: expected string to have >=3 characters". The field it names is known
 * (the issue's `loc`), so the message is rewritten with the field's name: "Name must be at
 * least 3 characters". Messages not in zod's wording (the API's own rules) are kept as written.
 */

/** `prices.0.price_amount` → `Price amount`: the last named segment of a field key. */
export function fieldLabelOf(key: string): string {
  const name = key
    .split('.')
    .reverse()
    .find((part) => part !== '' && !/^\d+$/.test(part));
  if (!name) return 'This value';
  const words = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replaceAll('_', ' ')
    .toLowerCase()
    .replace(/\b(url|id)\b/g, (acronym) => acronym.toUpperCase());
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const plural = (count: string, unit: string) =>
  `${count} ${count === '1' ? unit.replace(/s$/, '') : unit}`;

const bounds: Record<string, string> = {
  '>=': 'at least',
  '>': 'more than',
  '<=': 'at most',
  '<': 'less than',
};

/** zod's wording of type names, as a seller would say them. */
const typeNames: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'yes or no',
  array: 'a list',
  object: 'a set of values',
  date: 'a date',
};

/** `msg` (zod's English) said of the field `key`. */
export function humanMessage(msg: string, key: string): string {
  const label = fieldLabelOf(key);
  const size =
    /^Too (?:small|big): expected (\w+) to (have|be) (>=|>|<=|<)(-?[\d.]+)(?: (\w+))?$/.exec(msg);
  if (size) {
    const [, origin, verb, comparison = '', limit = '', unit] = size;
    const bound = bounds[comparison];
    if (origin === 'string' && comparison === '>=' && limit === '1') return `${label} is required`;
    if (verb === 'be') return `${label} must be ${bound} ${limit}`;
    if (origin === 'string')
      return `${label} must be ${bound} ${plural(limit, unit ?? 'characters')}`;
    return `${label} must have ${bound} ${plural(limit, unit ?? 'items')}`;
  }
  const type = /^Invalid input: expected (\w+), received (\w+)$/.exec(msg);
  if (type) {
    const [, expected = '', received] = type;
    if (received === 'undefined' || received === 'null') return `${label} is required`;
    return `${label} must be ${typeNames[expected] ?? expected}`;
  }
  const choice = /^Invalid (?:option|input): expected (?:one of )?(.+)$/.exec(msg);
  if (choice) {
    const options = (choice[1] ?? '').split('|').map((option) => option.replaceAll('"', ''));
    return options.length === 1
      ? `${label} must be ${options[0]}`
      : `${label} must be one of: ${options.join(', ')}`;
  }
  const format =
    /^Invalid (email address|URL|UUID|ISO date(?:time)?|date|datetime|.+ string)$/.exec(msg);
  if (format) return `${label} must be a valid ${format[1]}`;
  const multiple = /^Invalid number: must be a multiple of (.+)$/.exec(msg);
  if (multiple) return `${label} must be a multiple of ${multiple[1]}`;
  if (msg === 'Invalid input') return `${label} is not valid`;
  return msg;
}
