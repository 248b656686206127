import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { portalRoute } from './paths.ts';

describe('portal paths', () => {
  it('reads the portal of a session, the sign-in landing and an organization’s portal', () => {
    assert.deepEqual(portalRoute('/portal'), { organizationSlug: null, focus: null });
    assert.deepEqual(portalRoute('/portal/'), { organizationSlug: null, focus: null });
    assert.deepEqual(portalRoute('/portal/sign-in', '?token=abc'), {
      organizationSlug: null,
      focus: null,
    });
    assert.deepEqual(portalRoute('/portal/acme%20works'), {
      organizationSlug: 'acme works',
      focus: null,
    });
  });

  it('opens the subscription or order a mail is about, by path or by query', () => {
    assert.deepEqual(portalRoute('/portal/subscriptions/sub-1'), {
      organizationSlug: null,
      focus: { section: 'subscriptions', id: 'sub-1' },
    });
    assert.deepEqual(portalRoute('/portal/orders/order-1'), {
      organizationSlug: null,
      focus: { section: 'orders', id: 'order-1' },
    });
    assert.deepEqual(portalRoute('/portal/acme', '?subscription_id=sub-2'), {
      organizationSlug: 'acme',
      focus: { section: 'subscriptions', id: 'sub-2' },
    });
    assert.deepEqual(portalRoute('/portal', '?order_id=order-2'), {
      organizationSlug: null,
      focus: { section: 'orders', id: 'order-2' },
    });
  });

  it('is no portal path otherwise', () => {
    for (const path of ['/portals', '/portal/acme/extra', '/portal/a/b/c', '/checkout/x', '/']) {
      assert.equal(portalRoute(path), null, path);
    }
  });
});
