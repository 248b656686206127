import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  amountWithoutTax,
  applicableRates,
  computeTax,
  type SellerTaxRate,
  shareTax,
  type TaxBehavior,
  type TaxBuyer,
  type TaxLine,
  taxOn,
} from './tax.ts';
import { validateTaxId } from './tax-ids.ts';

const rate = (
  jurisdiction: string,
  rateBps: number,
  displayName: string,
  inclusive = false,
): SellerTaxRate => {
  const [country = '', subdivision = null] = jurisdiction.split('-');
  return { country, subdivision, rateBps, displayName, inclusive };
};

/** The seller of docs/tax.md: established in Germany, with these rates. */
const workedExampleRates = [
  rate('DE', 1900, 'VAT DE'),
  rate('FR', 2000, 'VAT FR'),
  rate('US-CA', 725, 'Sales tax CA'),
  rate('NL', 2100, 'VAT NL', true),
];

const buyer = (country: string, state: string | null = null, taxId: string | null = null) => ({
  country,
  state,
  taxId: taxId ? validateTaxId(taxId, country) : null,
});

const exclusiveLine = (
  jurisdiction: string,
  displayName: string,
  rateBps: number,
  taxableAmount: number,
  taxAmount: number,
): TaxLine => ({
  jurisdiction,
  displayName,
  rateBps,
  taxableAmount,
  taxAmount,
  inclusive: false,
  reverseCharge: false,
});

describe('the rounding rule: half away from zero, integers only', () => {
  const cases: [label: string, actual: number, expected: number][] = [
    ['exact', taxOn(10_000, 1900), 1900],
    ['below half rounds down', taxOn(4999, 725), 362],
    ['half rounds up', taxOn(10, 500), 1],
    ['half rounds up (7.5)', taxOn(30, 2500), 8],
    ['above half rounds up', taxOn(4999, 1900), 950],
    ['beyond the safe float range', taxOn(2 ** 53, 1), 900_719_925_474],
    ['inclusive: the part without tax', amountWithoutTax(4900, 2100), 4050],
    ['inclusive: half rounds up', amountWithoutTax(21, 10_000), 11],
    ['negative amounts round away from zero', taxOn(-10, 500), -1],
  ];
  for (const [label, actual, expected] of cases) {
    it(label, () => assert.equal(actual, expected));
  }
});

describe('which of the seller rates apply', () => {
  const rates = [
    rate('CA', 500, 'GST'),
    rate('CA-QC', 998, 'QST'),
    rate('US-CA', 725, 'Sales tax CA'),
  ];
  const cases: [label: string, buyer: Pick<TaxBuyer, 'country' | 'state'>, names: string[]][] = [
    ['a Quebec buyer: GST and QST', { country: 'CA', state: 'QC' }, ['GST', 'QST']],
    ['an Ontario buyer: GST only', { country: 'CA', state: 'ON' }, ['GST']],
    ['a Californian, state written US-CA', { country: 'US', state: 'US-CA' }, ['Sales tax CA']],
    ['a Californian, lower case', { country: 'us', state: 'ca' }, ['Sales tax CA']],
    ['a New Yorker: no rate', { country: 'US', state: 'NY' }, []],
    ['a US buyer without a state', { country: 'US', state: null }, []],
  ];
  for (const [label, place, names] of cases) {
    it(label, () => {
      assert.deepEqual(
        applicableRates(rates, place).map((each) => each.displayName),
        names,
      );
    });
  }
});

describe('the tax lines of a sale', () => {
  const cases: [
    label: string,
    input: {
      rates?: SellerTaxRate[];
      seller?: string | null;
      behavior?: TaxBehavior;
      buyer: TaxBuyer;
      amount: number;
    },
    expected: {
      lines: TaxLine[];
      taxAmount: number;
      amountExcludingTax: number;
      totalAmount: number;
    },
  ][] = [
    // The four buyers of docs/tax.md, each buying the €49.00 / $49.00 product.
    [
      'docs/tax.md: a German consumer pays 19 % on top',
      { buyer: buyer('DE'), amount: 4900 },
      {
        lines: [exclusiveLine('DE', 'VAT DE', 1900, 4900, 931)],
        taxAmount: 931,
        amountExcludingTax: 4900,
        totalAmount: 5831,
      },
    ],
    [
      'docs/tax.md: a French business with a VAT id: reverse charge, no tax',
      { buyer: buyer('FR', null, 'FR61954506077'), amount: 4900 },
      {
        lines: [
          {
            jurisdiction: 'FR',
            displayName: 'Reverse charge',
            rateBps: 0,
            taxableAmount: 4900,
            taxAmount: 0,
            inclusive: false,
            reverseCharge: true,
          },
        ],
        taxAmount: 0,
        amountExcludingTax: 4900,
        totalAmount: 4900,
      },
    ],
    [
      'docs/tax.md: a Californian pays 7.25 %, 355.25 rounded to 355',
      { buyer: buyer('US', 'CA'), amount: 4900 },
      {
        lines: [exclusiveLine('US-CA', 'Sales tax CA', 725, 4900, 355)],
        taxAmount: 355,
        amountExcludingTax: 4900,
        totalAmount: 5255,
      },
    ],
    [
      'docs/tax.md: a Dutch consumer, price inclusive of 21 %: the total stays the price',
      { buyer: buyer('NL'), amount: 4900 },
      {
        lines: [
          {
            ...exclusiveLine('NL', 'VAT NL', 2100, 4050, 850),
            inclusive: true,
          },
        ],
        taxAmount: 850,
        amountExcludingTax: 4050,
        totalAmount: 4900,
      },
    ],
    [
      'a French consumer (no VAT id) pays French VAT',
      { buyer: buyer('FR'), amount: 4900 },
      {
        lines: [exclusiveLine('FR', 'VAT FR', 2000, 4900, 980)],
        taxAmount: 980,
        amountExcludingTax: 4900,
        totalAmount: 5880,
      },
    ],
    [
      'a German business with a German VAT id: domestic, taxed',
      { buyer: buyer('DE', null, 'DE136695976'), amount: 4900 },
      {
        lines: [exclusiveLine('DE', 'VAT DE', 1900, 4900, 931)],
        taxAmount: 931,
        amountExcludingTax: 4900,
        totalAmount: 5831,
      },
    ],
    [
      'a seller outside the EU: no reverse charge, the French rate applies',
      { seller: 'US', buyer: buyer('FR', null, 'FR61954506077'), amount: 4900 },
      {
        lines: [exclusiveLine('FR', 'VAT FR', 2000, 4900, 980)],
        taxAmount: 980,
        amountExcludingTax: 4900,
        totalAmount: 5880,
      },
    ],
    [
      'a seller without a home country: no reverse charge',
      { seller: null, buyer: buyer('FR', null, 'FR61954506077'), amount: 4900 },
      {
        lines: [exclusiveLine('FR', 'VAT FR', 2000, 4900, 980)],
        taxAmount: 980,
        amountExcludingTax: 4900,
        totalAmount: 5880,
      },
    ],
    [
      'a British business (outside the EU) with a GB VAT id: no rate, no line',
      { buyer: buyer('GB', null, 'GB980780684'), amount: 4900 },
      { lines: [], taxAmount: 0, amountExcludingTax: 4900, totalAmount: 4900 },
    ],
    [
      'an exempt product: no lines',
      { behavior: 'exempt', buyer: buyer('DE'), amount: 4900 },
      { lines: [], taxAmount: 0, amountExcludingTax: 4900, totalAmount: 4900 },
    ],
    [
      'nothing to pay: no lines',
      { buyer: buyer('DE'), amount: 0 },
      { lines: [], taxAmount: 0, amountExcludingTax: 0, totalAmount: 0 },
    ],
    [
      'Quebec, both inclusive: the last line takes the remainder of what was carved out',
      {
        rates: [rate('CA', 500, 'GST', true), rate('CA-QC', 998, 'QST', true)],
        buyer: buyer('CA', 'QC'),
        amount: 5000,
      },
      {
        lines: [
          { ...exclusiveLine('CA', 'GST', 500, 4349, 217), inclusive: true },
          { ...exclusiveLine('CA-QC', 'QST', 998, 4349, 434), inclusive: true },
        ],
        taxAmount: 651,
        amountExcludingTax: 4349,
        totalAmount: 5000,
      },
    ],
    [
      'an inclusive and an exclusive rate: the exclusive one on the amount less inclusive tax',
      {
        rates: [rate('CA', 500, 'GST', true), rate('CA-QC', 998, 'QST')],
        buyer: buyer('CA', 'QC'),
        amount: 10_500,
      },
      {
        lines: [
          { ...exclusiveLine('CA', 'GST', 500, 10_000, 500), inclusive: true },
          exclusiveLine('CA-QC', 'QST', 998, 10_000, 998),
        ],
        taxAmount: 1498,
        amountExcludingTax: 10_000,
        totalAmount: 11_498,
      },
    ],
  ];
  for (const [label, input, expected] of cases) {
    it(label, () => {
      const result = computeTax({
        rates: input.rates ?? workedExampleRates,
        sellerCountry: input.seller === undefined ? 'DE' : input.seller,
        behavior: input.behavior ?? 'taxable',
        buyer: input.buyer,
        amount: input.amount,
      });
      assert.deepEqual(result, expected);
      assert.equal(result.amountExcludingTax + result.taxAmount, result.totalAmount);
    });
  }
});

describe('an order’s tax shared by its items (shareTax)', () => {
  const sumOf = (values: number[]) => values.reduce((sum, value) => sum + value, 0);
  const cases: [label: string, amounts: number[], tax: number, shares: number[]][] = [
    ['one item takes all of it', [3131], 595, [595]],
    // docs/tax.md: the `invoice` upgrade, then the `prorate` upgrade's renewal.
    ['a proration credit’s share is negative', [-2121, 4242], 403, [-403, 806]],
    [
      'pro rata, rounded half away from zero, the last the remainder',
      [6262, -2121, 4242],
      1593,
      [1190, -403, 806],
    ],
    ['nothing to share', [1000, -1000], 0, [0, 0]],
    ['items adding up to nothing share nothing', [-500, 500], 95, [0, 0]],
  ];
  for (const [label, amounts, tax, shares] of cases) {
    it(label, () => {
      const shared = shareTax(amounts, tax);
      assert.deepEqual(shared, shares);
      if (sumOf(amounts) !== 0) assert.equal(sumOf(shared), tax);
    });
  }
});
