/**
 * Seller-defined tax rates (issue 22, option 2): which of the seller's rates apply to a buyer,
 * and the tax lines they make of an amount. Plain functions over plain values; amounts are
 * integer minor units, rates integer basis points (1900 = 19 %).
 *
 * Rounding, one rule for every line: a line's tax is its exact value rounded half away from
 * zero to the minor unit, computed in BigInt (never a float).
 * - Exclusive: tax = round(taxable × rate / 10000); the buyer pays the amount plus the tax.
 * - Inclusive: the amount already holds the tax. With R the sum of the inclusive rates,
 *   taxable = round(amount × 10000 / (10000 + R)) and the tax lines share amount − taxable: each
 *   line round(taxable × rate / 10000), the last line taking the remainder so that the lines
 *   add up exactly to what was carved out (with one inclusive rate: tax = amount − taxable).
 * Exclusive rates that apply beside inclusive ones are computed on the amount less the
 * inclusive tax (as Stripe does).
 */

/** How an organization taxes its sales: not at all, with its own rates, or with Stripe Tax. */
export const taxModes = ['none', 'seller_rates', 'stripe_tax'] as const;
export type TaxMode = (typeof taxModes)[number];

/**
 * An organization's tax settings (Tollgate's own `tax_settings`): how it taxes, where it is
 * established (for the EU reverse charge) and whether the rates it creates include the tax in
 * its prices unless a rate says otherwise.
 */
export interface TaxSettings {
  mode: TaxMode;
  homeCountry: string | null;
  pricesIncludeTax: boolean;
}

export const defaultTaxSettings = (): TaxSettings => ({
  mode: 'none',
  homeCountry: null,
  pricesIncludeTax: false,
});

/** The organization's tax settings, with the defaults of keys added since it saved them. */
export const taxSettingsOf = (organization: {
  taxSettings: Partial<TaxSettings>;
}): TaxSettings => ({
  ...defaultTaxSettings(),
  ...organization.taxSettings,
});

/** Whether a product's sales are taxed at all. */
export const taxBehaviors = ['taxable', 'exempt'] as const;
export type TaxBehavior = (typeof taxBehaviors)[number];

/** The 27 EU member states, by ISO 3166-1 alpha-2 code (Greece as GR, not its VAT prefix EL). */
export const euMemberStates: ReadonlySet<string> = new Set([
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
]);

/** The greatest rate a seller may define: 100 %. */
export const maxRateBps = 10_000;

/** One of the seller's rates: a country's, or a US state's or Canadian province's. */
export interface SellerTaxRate {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  /** ISO 3166-2 subdivision code without the country (`CA`, `QC`), or null for the country. */
  subdivision: string | null;
  rateBps: number;
  /** As shown on checkouts and invoices, e.g. `VAT DE`. */
  displayName: string;
  /** Whether prices sold into this jurisdiction already include the tax. */
  inclusive: boolean;
}

/** Where and who the buyer is, as the checkout knows it. */
export interface TaxBuyer {
  country: string;
  /** The US state or Canadian province (`CA`, `US-CA` both read as `CA`), if given. */
  state: string | null;
  /** A tax id validated in the billing country, with its kind (domain/tax-ids.ts). */
  taxId: readonly [value: string, format: string] | null;
}

/** `1900` → `19%`, `725` → `7.25%`: a rate in basis points as exact decimal text. */
export function ratePercent(rateBps: number): string {
  const hundredths = rateBps % 100;
  const fraction =
    hundredths === 0 ? '' : `.${String(hundredths).padStart(2, '0').replace(/0$/, '')}`;
  return `${Math.trunc(rateBps / 100)}${fraction}%`;
}

/** One tax line of a checkout, order or invoice. */
export interface TaxLine {
  /** `DE`, `US-CA`: the country, with the subdivision when the rate is a subdivision's. */
  jurisdiction: string;
  displayName: string;
  rateBps: number;
  /** The amount the rate applies to (for an inclusive line, without the tax). */
  taxableAmount: number;
  taxAmount: number;
  inclusive: boolean;
  /** EU B2B across borders: no tax, the buyer accounts for it ("Reverse charge"). */
  reverseCharge: boolean;
}

/** The standard wording an EU invoice (and the checkout) carries when the buyer accounts for the VAT. */
export const reverseChargeNotice = 'Reverse charge — VAT to be accounted for by the recipient';

/** A tax line's name as invoices and the checkout show it: `VAT DE (DE)`, `Reverse charge (FR)`. */
export const taxLineName = (line: Pick<TaxLine, 'displayName' | 'jurisdiction'>) =>
  `${line.displayName} (${line.jurisdiction})`;

/** A tax line's rate as invoices and the checkout show it: `19%`, `21% incl.`. */
export const taxLineRate = (line: Pick<TaxLine, 'rateBps' | 'inclusive'>) =>
  `${ratePercent(line.rateBps)}${line.inclusive ? ' incl.' : ''}`;

export interface TaxInput {
  rates: readonly SellerTaxRate[];
  /** The seller's home country (ISO alpha-2), for the EU reverse charge; null when not set. */
  sellerCountry: string | null;
  behavior: TaxBehavior;
  buyer: TaxBuyer;
  /** The amount to tax: the price less any discount. */
  amount: number;
}

export interface TaxResult {
  lines: TaxLine[];
  /** The tax of every line together. */
  taxAmount: number;
  /** The amount without tax: the amount less the inclusive tax. */
  amountExcludingTax: number;
  /** What the buyer pays: the amount plus the exclusive tax. */
  totalAmount: number;
}

const scale = 10_000n;

/** n / d rounded half away from zero (d > 0), in exact integers. */
function divideRounded(n: bigint, d: bigint): bigint {
  const sign = n < 0n ? -1n : 1n;
  const magnitude = n < 0n ? -n : n;
  return sign * ((2n * magnitude + d) / (2n * d));
}

/** The tax of `rateBps` on `amount`, rounded by the one rule above. */
export const taxOn = (amount: number, rateBps: number): number =>
  Number(divideRounded(BigInt(amount) * BigInt(rateBps), scale));

/** The part of an inclusive `amount` that is not tax, at the inclusive rates' sum `rateBps`. */
export const amountWithoutTax = (amount: number, rateBps: number): number =>
  Number(divideRounded(BigInt(amount) * scale, scale + BigInt(rateBps)));

/** `ca`, `US-CA`, ` ca ` → `CA`: a state as the rates name it. */
export function subdivisionCode(state: string | null, country: string): string | null {
  const code = state?.trim().toUpperCase();
  if (!code) return null;
  return code.startsWith(`${country}-`) ? code.slice(country.length + 1) : code;
}

/**
 * The seller's rates for the buyer's place: the country's rate and, for a buyer whose state or
 * province has one, that rate too (a Canadian sale pays GST and the province's PST or QST).
 */
export function applicableRates(
  rates: readonly SellerTaxRate[],
  buyer: Pick<TaxBuyer, 'country' | 'state'>,
): SellerTaxRate[] {
  const country = buyer.country.toUpperCase();
  const subdivision = subdivisionCode(buyer.state, country);
  return rates.filter(
    (rate) =>
      rate.country === country && (rate.subdivision === null || rate.subdivision === subdivision),
  );
}

/**
 * EU B2B across borders: a seller established in a member state selling to a buyer whose VAT id
 * (validated in their billing country) is of another member state charges no VAT.
 */
export function isReverseCharge(sellerCountry: string | null, buyer: TaxBuyer): boolean {
  const country = buyer.country.toUpperCase();
  return (
    sellerCountry !== null &&
    euMemberStates.has(sellerCountry) &&
    euMemberStates.has(country) &&
    country !== sellerCountry &&
    buyer.taxId?.[1] === 'eu_vat'
  );
}

const jurisdictionOf = (rate: SellerTaxRate) =>
  rate.subdivision ? `${rate.country}-${rate.subdivision}` : rate.country;

/** The inclusive rates' lines: the tax carved out of `amount`, the last line taking the remainder. */
function inclusiveLines(amount: number, rates: SellerTaxRate[]): TaxLine[] {
  const totalRate = rates.reduce((sum, rate) => sum + rate.rateBps, 0);
  const taxable = amountWithoutTax(amount, totalRate);
  let left = amount - taxable;
  return rates.map((rate, index) => {
    const taxAmount = index === rates.length - 1 ? left : taxOn(taxable, rate.rateBps);
    left -= taxAmount;
    return line(rate, taxable, taxAmount);
  });
}

const line = (rate: SellerTaxRate, taxableAmount: number, taxAmount: number): TaxLine => ({
  jurisdiction: jurisdictionOf(rate),
  displayName: rate.displayName,
  rateBps: rate.rateBps,
  taxableAmount,
  taxAmount,
  inclusive: rate.inclusive,
  reverseCharge: false,
});

/**
 * The tax lines of `amount` sold to the buyer: none for an exempt product or a place the seller
 * has no rate for; one reverse-charge line of no tax for EU B2B across borders; else a line per
 * applicable rate (inclusive ones carved out of the amount, exclusive ones added to it).
 */
export function computeTax(input: TaxInput): TaxResult {
  const { amount, buyer } = input;
  const untaxed = (lines: TaxLine[]): TaxResult => ({
    lines,
    taxAmount: 0,
    amountExcludingTax: amount,
    totalAmount: amount,
  });
  if (input.behavior === 'exempt' || amount <= 0) return untaxed([]);
  if (isReverseCharge(input.sellerCountry, buyer)) {
    return untaxed([
      {
        jurisdiction: buyer.country.toUpperCase(),
        displayName: 'Reverse charge',
        rateBps: 0,
        taxableAmount: amount,
        taxAmount: 0,
        inclusive: false,
        reverseCharge: true,
      },
    ]);
  }
  const rates = applicableRates(input.rates, buyer);
  const inclusive = inclusiveLines(
    amount,
    rates.filter((rate) => rate.inclusive),
  );
  const inclusiveTax = inclusive.reduce((sum, each) => sum + each.taxAmount, 0);
  const amountExcludingTax = amount - inclusiveTax;
  const exclusive = rates
    .filter((rate) => !rate.inclusive)
    .map((rate) => line(rate, amountExcludingTax, taxOn(amountExcludingTax, rate.rateBps)));
  const exclusiveTax = exclusive.reduce((sum, each) => sum + each.taxAmount, 0);
  return {
    lines: [...inclusive, ...exclusive],
    taxAmount: inclusiveTax + exclusiveTax,
    amountExcludingTax,
    totalAmount: amount + exclusiveTax,
  };
}

/**
 * An order's tax shared among its items in proportion to their amounts (negative proration
 * lines get a negative share): each share rounded by the one rule above, the last item taking
 * the remainder, so the items' tax adds up exactly to the order's. All zero when the items add
 * up to nothing.
 */
export function shareTax(amounts: readonly number[], taxAmount: number): number[] {
  const total = amounts.reduce((sum, amount) => sum + amount, 0);
  if (total === 0 || taxAmount === 0) return amounts.map(() => 0);
  let left = taxAmount;
  return amounts.map((amount, index) => {
    const share =
      index === amounts.length - 1
        ? left
        : Number(divideRoundedSigned(BigInt(taxAmount) * BigInt(amount), BigInt(total)));
    left -= share;
    return share;
  });
}

/** n / d rounded half away from zero, for a divisor of either sign. */
const divideRoundedSigned = (n: bigint, d: bigint) =>
  d < 0n ? divideRounded(-n, -d) : divideRounded(n, d);
