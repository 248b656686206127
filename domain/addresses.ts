import { z } from 'zod';

/** Every ISO 3166-1 alpha-2 code Polar knows (its `CountryAlpha2`). */
const isoCountryCodes = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR ' +
  'BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ ' +
  'EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW ' +
  'GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY ' +
  'KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV ' +
  'MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY ' +
  'QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG ' +
  'TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ' +
  'ZW'
).split(' ');

/** Countries under embargo: no address may name them (Polar's `CountryAlpha2Input`). */
export const embargoedCountries = ['CU', 'IR', 'KP', 'SY', 'RU'];

/** The countries an address may name. */
export const addressCountries: ReadonlySet<string> = new Set(
  isoCountryCodes.filter((code) => !embargoedCountries.includes(code)),
);

/** ISO 3166-2 subdivisions of the countries whose state Polar stores as `US-CA`, `CA-QC`. */
export const subdivisions: Readonly<Record<string, ReadonlySet<string>>> = {
  US: new Set(
    (
      'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ ' +
      'NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC AS GU MP PR UM VI'
    )
      .split(' ')
      .map((code) => `US-${code}`),
  ),
  CA: new Set('AB BC MB NB NL NS NT NU ON PE QC SK YT'.split(' ').map((code) => `CA-${code}`)),
};

/** A postal address once normalised: blank parts are null, the country upper-case. */
export interface NormalisedAddress {
  line1: string | null;
  line2: string | null;
  postalCode: string | null;
  city: string | null;
  state: string | null;
  country: string;
}

/**
 * The state of an address in `country`: for the US and Canada the ISO 3166-2 code, accepting the
 * bare code (`CA` becomes `US-CA`) in either case; elsewhere the text as given. Answers
 * undefined for a US or Canadian state that does not exist.
 */
export function normaliseState(country: string, state: string | null): string | null | undefined {
  const known = subdivisions[country];
  if (!known || state === null) return state;
  const upper = state.toUpperCase();
  const code = upper.startsWith(`${country}-`) ? upper : `${country}-${upper}`;
  return known.has(code) ? code : undefined;
}

const addressPart = z
  .string()
  .trim()
  .nullish()
  .transform((value) => value || null);

/**
 * An address as sellers and buyers send it (Polar's `AddressInput`): `postal_code` on the wire,
 * the country an ISO alpha-2 code in any case, outside the embargoed countries.
 */
export const addressInput = z
  .object({
    line1: addressPart,
    line2: addressPart,
    postal_code: addressPart,
    city: addressPart,
    state: addressPart,
    country: z
      .string()
      .trim()
      .toUpperCase()
      .refine((country) => addressCountries.has(country), { message: 'Invalid country.' }),
  })
  .transform((address, context): NormalisedAddress => {
    const state = normaliseState(address.country, address.state);
    if (state === undefined) {
      context.addIssue({ code: 'custom', path: ['state'], message: 'Invalid state.' });
      return z.NEVER;
    }
    return {
      line1: address.line1,
      line2: address.line2,
      postalCode: address.postal_code,
      city: address.city,
      state,
      country: address.country,
    };
  });
