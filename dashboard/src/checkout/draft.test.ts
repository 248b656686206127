import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draftOf, withDraft } from './draft.ts';
import type { FormValues } from './form';

const blank: FormValues = {
  email: '',
  name: '',
  isBusiness: false,
  billingName: '',
  taxId: '',
  address: { country: '', line1: '', line2: '', postal_code: '', city: '', state: '' },
  discountCode: 'SERVER',
  amountText: '10.00',
  customFields: { source: null },
  paymentMethod: 'pm_card_visa',
};

describe('checkout drafts', () => {
  it('brings back what was typed', () => {
    const typed: FormValues = {
      ...blank,
      email: 'ada@example.com',
      name: 'Ada',
      address: { ...blank.address, country: 'US', postal_code: '94107', state: 'CA' },
      customFields: { source: 'friend' },
      paymentMethod: 'pm_card_chargeDeclined',
    };
    const restored = withDraft(blank, JSON.parse(JSON.stringify(draftOf(typed))));
    assert.deepEqual(restored, { ...typed, discountCode: 'SERVER', amountText: '10.00' });
  });

  it('leaves to the server what it holds: business flag, discount code and amount', () => {
    const restored = withDraft(blank, {
      isBusiness: true,
      discountCode: 'TYPED',
      amountText: '99',
    });
    assert.deepEqual(restored, blank);
  });

  it('ignores what is not a draft or of the wrong type', () => {
    assert.deepEqual(withDraft(blank, null), blank);
    assert.deepEqual(withDraft(blank, ['ada@example.com']), blank);
    const restored = withDraft(blank, {
      email: 42,
      address: { country: { code: 'US' }, city: 'Paris', planet: 'Mars' },
      customFields: { source: { nested: true }, other: 3 },
    });
    assert.equal(restored.email, '');
    assert.deepEqual(restored.address, { ...blank.address, city: 'Paris' });
    assert.deepEqual(restored.customFields, { source: null, other: 3 });
  });

  it('does not change the values it starts from', () => {
    const before = structuredClone(blank);
    withDraft(blank, { address: { city: 'Paris' }, customFields: { source: 'friend' } });
    assert.deepEqual(blank, before);
  });
});
