/** Stripe's tax id kinds, as Polar's `TaxIDFormat` names them. */
export const taxIdFormats = [
  'ad_nrt',
  'ae_trn',
  'ar_cuit',
  'au_abn',
  'au_arn',
  'bg_uic',
  'bh_vat',
  'bo_tin',
  'br_cnpj',
  'br_cpf',
  'ca_bn',
  'ca_gst_hst',
  'ca_pst_bc',
  'ca_pst_mb',
  'ca_pst_sk',
  'ca_qst',
  'ch_uid',
  'ch_vat',
  'cl_tin',
  'cn_tin',
  'co_nit',
  'cr_tin',
  'de_stn',
  'do_rcn',
  'ec_ruc',
  'eg_tin',
  'es_cif',
  'eu_oss_vat',
  'eu_vat',
  'gb_vat',
  'ge_vat',
  'hk_br',
  'hr_oib',
  'hu_tin',
  'id_npwp',
  'il_vat',
  'in_gst',
  'is_vat',
  'jp_cn',
  'jp_rn',
  'jp_trn',
  'ke_pin',
  'kr_brn',
  'kz_bin',
  'li_uid',
  'mx_rfc',
  'my_frp',
  'my_itn',
  'my_sst',
  'ng_tin',
  'no_vat',
  'no_voec',
  'nz_gst',
  'om_vat',
  'pe_ruc',
  'ph_tin',
  'ro_tin',
  'rs_pib',
  'ru_inn',
  'ru_kpp',
  'sa_vat',
  'sg_gst',
  'sg_uen',
  'si_tin',
  'sv_nit',
  'th_vat',
  'tr_tin',
  'tw_vat',
  'ua_vat',
  'us_ein',
  'uy_ruc',
  've_rif',
  'vn_tin',
  'za_vat',
] as const;
export type TaxIdFormat = (typeof taxIdFormats)[number];

/** A validated tax id: its canonical value and its kind, e.g. `['FR61954506077', 'eu_vat']`. */
export type ValidTaxId = [value: string, format: TaxIdFormat];

/** One kind of tax id: reads a compact number, answering its canonical value or null. */
interface TaxIdScheme {
  format: TaxIdFormat;
  read: (compact: string) => string | null;
}

const digitsOf = (text: string) => [...text].map(Number);

/** Luhn's check (Canadian business numbers). */
function luhnValid(digits: string): boolean {
  const sum = digitsOf(digits)
    .reverse()
    .reduce((total, digit, index) => {
      if (index % 2 === 0) return total + digit;
      const doubled = digit * 2;
      return total + (doubled > 9 ? doubled - 9 : doubled);
    }, 0);
  return sum % 10 === 0;
}

/** A weighted sum of the leading digits. */
const weightedSum = (digits: string, weights: number[]) =>
  weights.reduce((total, weight, index) => total + weight * Number(digits[index]), 0);

/** Australian Business Number: first digit less one, weighted sum divisible by 89. */
function abnValid(digits: string): boolean {
  const shifted = `${Number(digits[0]) - 1}${digits.slice(1)}`;
  return weightedSum(shifted, [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19]) % 89 === 0;
}

/** Modulo 11 check digit over the first eight digits (Swiss UID, Norwegian organisation number). */
function mod11Valid(digits: string, weights: number[]): boolean {
  const check = (11 - (weightedSum(digits, weights) % 11)) % 11;
  return check !== 10 && check === Number(digits[8]);
}

/** A number matching `pattern` (whole string) and, if given, its checksum; kept as written. */
const plain =
  (pattern: RegExp, checksum?: (compact: string) => boolean) =>
  (compact: string): string | null =>
    pattern.test(compact) && (!checksum || checksum(compact)) ? compact : null;

/**
 * A number written with a country prefix (`FR…`, `GB…`, `CHE…`) that buyers often leave out:
 * read with or without it, stored with it.
 */
const prefixed =
  (prefix: string, pattern: RegExp, checksum?: (digits: string) => boolean) =>
  (compact: string): string | null => {
    const body = compact.startsWith(prefix) ? compact.slice(prefix.length) : compact;
    return pattern.test(body) && (!checksum || checksum(body)) ? `${prefix}${body}` : null;
  };

/** EU VAT numbers after the country prefix (Greece writes `EL`), checked by shape only. */
const euVatNumbers: Record<string, [prefix: string, pattern: RegExp]> = {
  AT: ['AT', /^U\d{8}$/],
  BE: ['BE', /^[01]\d{9}$/],
  BG: ['BG', /^\d{9,10}$/],
  CY: ['CY', /^\d{8}[A-Z]$/],
  CZ: ['CZ', /^\d{8,10}$/],
  DE: ['DE', /^\d{9}$/],
  DK: ['DK', /^\d{8}$/],
  EE: ['EE', /^\d{9}$/],
  ES: ['ES', /^[A-Z0-9]\d{7}[A-Z0-9]$/],
  FI: ['FI', /^\d{8}$/],
  FR: ['FR', /^[0-9A-HJ-NP-Z]{2}\d{9}$/],
  GR: ['EL', /^\d{9}$/],
  HR: ['HR', /^\d{11}$/],
  HU: ['HU', /^\d{8}$/],
  IE: ['IE', /^(\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$/],
  IT: ['IT', /^\d{11}$/],
  LT: ['LT', /^(\d{9}|\d{12})$/],
  LU: ['LU', /^\d{8}$/],
  LV: ['LV', /^\d{11}$/],
  MT: ['MT', /^\d{8}$/],
  NL: ['NL', /^\d{9}B\d{2}$/],
  PL: ['PL', /^\d{10}$/],
  PT: ['PT', /^\d{9}$/],
  RO: ['RO', /^\d{2,10}$/],
  SE: ['SE', /^\d{10}01$/],
  SI: ['SI', /^\d{8}$/],
  SK: ['SK', /^\d{10}$/],
};

const swissVat = /^\d{9}(MWST|TVA|IVA|TPV)$/;
const swissChecksum = (digits: string) => mod11Valid(digits, [5, 4, 3, 2, 7, 6, 5, 4]);

/** The tax id kinds accepted per billing country, tried in order. */
const schemesByCountry: Record<string, TaxIdScheme[]> = {
  ...Object.fromEntries(
    Object.entries(euVatNumbers).map(([country, [prefix, pattern]]) => [
      country,
      [{ format: 'eu_vat', read: prefixed(prefix, pattern) }],
    ]),
  ),
  GB: [{ format: 'gb_vat', read: prefixed('GB', /^(\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2})$/) }],
  US: [{ format: 'us_ein', read: plain(/^\d{9}$/) }],
  CA: [
    {
      format: 'ca_gst_hst',
      read: plain(/^\d{9}RT\d{4}$/, (compact) => luhnValid(compact.slice(0, 9))),
    },
    { format: 'ca_bn', read: plain(/^\d{9}$/, luhnValid) },
  ],
  AU: [{ format: 'au_abn', read: plain(/^\d{11}$/, abnValid) }],
  CH: [
    { format: 'ch_vat', read: prefixed('CHE', swissVat, swissChecksum) },
    { format: 'ch_uid', read: prefixed('CHE', /^\d{9}$/, swissChecksum) },
  ],
  NO: [
    {
      format: 'no_vat',
      // Written `NO 995 525 828 MVA`; Stripe stores the number with its `MVA` suffix only.
      read: (compact) => {
        const digits = /^(?:NO)?(\d{9})(?:MVA)?$/.exec(compact)?.[1];
        return digits && mod11Valid(digits, [3, 2, 7, 6, 5, 4, 3, 2]) ? `${digits}MVA` : null;
      },
    },
  ],
  NZ: [{ format: 'nz_gst', read: plain(/^\d{8,9}$/) }],
  IS: [{ format: 'is_vat', read: plain(/^\d{5,6}$/) }],
  IN: [{ format: 'in_gst', read: plain(/^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/) }],
  JP: [
    { format: 'jp_trn', read: plain(/^T\d{13}$/) },
    { format: 'jp_cn', read: plain(/^\d{13}$/) },
  ],
  SG: [
    { format: 'sg_gst', read: plain(/^M\d{8}[A-Z0-9]$/) },
    { format: 'sg_uen', read: plain(/^(\d{8,9}[A-Z]|[TSR]\d{2}[A-Z]{2}\d{4}[A-Z])$/) },
  ],
  KR: [{ format: 'kr_brn', read: plain(/^\d{10}$/) }],
  BR: [
    { format: 'br_cnpj', read: plain(/^\d{14}$/) },
    { format: 'br_cpf', read: plain(/^\d{11}$/) },
  ],
  MX: [{ format: 'mx_rfc', read: plain(/^[A-ZÑ&]{3,4}\d{6}[A-Z0-9]{3}$/) }],
  AE: [{ format: 'ae_trn', read: plain(/^\d{15}$/) }],
  ZA: [{ format: 'za_vat', read: plain(/^4\d{9}$/) }],
};

/**
 * Validates a tax id against the buyer's billing country, as Polar does: the kind is whatever
 * the country's formats recognise (a kind named by the caller is not trusted), the value is
 * stored upper-case without separators. Answers null for an invalid number or a country whose
 * tax ids are not supported.
 */
export function validateTaxId(value: string, country: string): ValidTaxId | null {
  const compact = value.toUpperCase().replace(/[\s.,/-]/g, '');
  for (const scheme of schemesByCountry[country] ?? []) {
    const canonical = scheme.read(compact);
    if (canonical !== null) return [canonical, scheme.format];
  }
  return null;
}
