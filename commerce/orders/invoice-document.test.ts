import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultInvoiceSettings } from '../../domain/organization-settings.ts';
import {
  creditNoteView,
  type InvoiceSource,
  invoiceHtml,
  invoiceView,
} from './invoice-document.ts';

/** A renewal of a monthly subscription for 3 seats, paid partly from the customer's balance. */
const renewal = (): InvoiceSource => ({
  order: {
    invoiceNumber: 'ACME-0042',
    status: 'paid',
    billingReason: 'subscription_cycle',
    billingName: 'Ada <Buyer>',
    billingAddress: null,
    subtotalAmount: 3000,
    discountAmount: 300,
    taxAmount: 540,
    totalAmount: 3240,
    fromBalanceAmount: 1000,
    currency: 'eur',
    // Made on a test clock: its period is the simulated one, not the day it was written.
    createdAt: new Date('2026-11-27T09:40:00Z'),
    billingPeriodStart: new Date('2026-03-31T00:00:00Z'),
    billingPeriodEnd: new Date('2026-04-30T00:00:00Z'),
    taxLines: [
      {
        jurisdiction: 'FR',
        displayName: 'VAT FR',
        rateBps: 2000,
        taxableAmount: 2700,
        taxAmount: 540,
        inclusive: false,
        reverseCharge: false,
      },
    ],
  },
  items: [{ label: 'Team plan', amount: 3000, taxAmount: 540, proration: false, seats: 3 }],
  subscription: { billingAnchor: new Date('2026-01-31T00:00:00Z'), recurringInterval: 'month' },
  organization: { name: 'acme', invoiceSettings: defaultInvoiceSettings() },
  buyerTaxId: null,
  payment: {
    methodMetadata: { brand: 'mastercard', last4: '4444' },
    paidAt: new Date('2026-03-31T00:01:00Z'),
  },
  logo: null,
});

describe('the invoice template', () => {
  it('bills a renewal for its period, its seats, the discount and the balance used', () => {
    const view = invoiceView(renewal());
    assert.deepEqual(view.billingPeriod, { start: '2026-03-31', end: '2026-04-30' });
    assert.deepEqual(view.lines, [
      { description: 'Team plan', quantity: 3, perSeat: true, amount: 3000, taxAmount: 540 },
    ]);
    assert.deepEqual(
      view.totals.map(({ label, amount }) => [label, amount]),
      [
        ['Subtotal', 3000],
        ['Discount', -300],
        ['Tax', 540],
        ['Total', 3240],
        ['Balance used', -1000],
        ['Charged', 2240],
      ],
    );
    assert.deepEqual(view.status, {
      label: 'Paid',
      method: 'Mastercard •••• 4444',
      on: '2026-03-31',
    });
    // Without legal details the organization's name is the seller.
    assert.equal(view.seller.name, 'acme');
    assert.deepEqual(view.taxLines, [
      {
        name: 'VAT FR (FR)',
        rate: '20%',
        taxableAmount: 2700,
        taxAmount: 540,
        reverseCharge: false,
      },
    ]);
    assert.doesNotMatch(invoiceHtml(view), /Reverse charge/);
  });

  it('says the buyer accounts for the VAT when a tax line is reverse charged', () => {
    const source = renewal();
    source.order.taxLines = [
      {
        jurisdiction: 'DE',
        displayName: 'Reverse charge',
        rateBps: 0,
        taxableAmount: 2700,
        taxAmount: 0,
        inclusive: false,
        reverseCharge: true,
      },
    ];
    const html = invoiceHtml(invoiceView(source));
    assert.match(
      html,
      /<td>Reverse charge \(DE\)<\/td><td>0%<\/td><td>€27\.00<\/td><td>€0\.00<\/td>/,
    );
    assert.match(html, /Reverse charge — VAT to be accounted for by the recipient/);
  });

  it('counts the period of an order made before periods were recorded from its day', () => {
    const source = renewal();
    source.order.billingPeriodStart = null;
    source.order.billingPeriodEnd = null;
    source.order.createdAt = new Date('2026-03-31T00:00:05Z');
    assert.deepEqual(invoiceView(source).billingPeriod, { start: '2026-03-31', end: '2026-04-30' });
  });

  it('prints no period for a one-time purchase and escapes what buyers typed', () => {
    const source = renewal();
    source.order.billingReason = 'purchase';
    source.subscription = null;
    const view = invoiceView(source);
    assert.equal(view.billingPeriod, null);
    const html = invoiceHtml(view);
    assert.match(html, /Ada &#60;Buyer&#62;/);
    assert.match(html, /€32\.40/);
  });

  it('makes a credit note of a refund: its number, the invoice it corrects, the amount back', () => {
    const view = creditNoteView({
      ...renewal(),
      refund: {
        creditNoteNumber: 'ACME-CN-0001',
        amount: 1000,
        taxAmount: 180,
        reason: 'customer_request',
        settledAt: new Date('2026-04-02T10:00:00Z'),
      },
    });
    assert.equal(view.number, 'ACME-CN-0001');
    assert.equal(view.correctsInvoice, 'ACME-0042');
    assert.equal(view.issuedOn, '2026-04-02');
    assert.deepEqual(
      view.totals.map(({ label, amount }) => [label, amount]),
      [
        ['Subtotal', 1000],
        ['Tax', 180],
        ['Total credited', 1180],
      ],
    );
    assert.equal(view.status.label, 'Refunded');
  });
});
