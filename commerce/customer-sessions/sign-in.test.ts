import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApiServer } from '../../api/server.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { Customer, CustomerSignInLink } from '../../db/entities/index.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import { capturedMailsTo, extractLinks, waitForMail } from '../../integrations/mail/testing.ts';
import { commerceErrors } from '../errors.ts';
import { publicLimits } from '../http/rate-limits.ts';
import {
  callV1,
  createSeller,
  polarClient,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../testing.ts';
import { portalSignInUrl, signInLinkForEmail, signInLinkTokenPrefix } from './service.ts';

const requestPath = '/v1/customer-portal/customer-session/request';
const authenticatePath = '/v1/customer-portal/customer-session/authenticate';

/** The token of the sign-in link in a mail. */
function tokenOfLink(link: string): string {
  const url = new URL(link);
  assert.equal(url.pathname, '/portal/sign-in');
  const token = url.searchParams.get('token') ?? '';
  assert.ok(token.startsWith(signInLinkTokenPrefix), link);
  return token;
}

describe('portal sign-in by mailed link (/v1/customer-portal/customer-session)', () => {
  let api: TestApi;
  let seller: Seller;
  const freshEmail = () => `buyer-${randomUUID().slice(0, 8)}@example.com`;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
  });
  after(() => api.close());

  /** Asks for a link to `email` at the seller and answers the token the mail carries. */
  async function requestLink(email: string, extra: Record<string, unknown> = {}) {
    const asked = await callV1(api, null, 'POST', requestPath, {
      organization_id: seller.organizationId,
      email,
      ...extra,
    });
    assert.equal(asked.status, 202, JSON.stringify(asked.body));
    const mail = await waitForMail({ to: email.trim(), subject: /^Sign in to Seller / });
    const [link] = extractLinks(mail);
    assert.ok(link, mail.text);
    assert.ok(mail.html.includes(link.replaceAll('&', '&amp;')), 'the HTML part links it too');
    return tokenOfLink(link);
  }

  const authenticate = (token: string) => callV1(api, null, 'POST', authenticatePath, { token });

  it('mails a link whose token opens a customer session once; only its hash is stored', async () => {
    const customer = await seller.polar.customers.create({ email: freshEmail(), name: 'Ada' });
    // The address as typed, in another case, finds the customer.
    const token = await requestLink(customer.email.toUpperCase());
    const stored = await api.orm.em.fork().find(CustomerSignInLink, { customer: customer.id });
    assert.equal(stored.length, 1);
    assert.equal(stored[0]?.tokenHash, hashToken(token));
    const minutesLeft = ((stored[0]?.expiresAt.getTime() ?? 0) - Date.now()) / 60_000;
    assert.ok(minutesLeft > 14 && minutesLeft <= 15, `expires in ${minutesLeft} min`);

    const opened = await authenticate(token);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal(opened.body.customer_id, customer.id);
    assert.ok(
      opened.body.customer_portal_url.endsWith(`?customer_session_token=${opened.body.token}`),
    );
    assert.equal(opened.body.return_to, '/portal');
    assert.match(opened.body.token, /^polar_cst_/);
    const portal = polarClient(api.url);
    const me = await portal.customerPortal.customers.get({ customerSession: opened.body.token });
    assert.equal(me.id, customer.id);

    const again = await authenticate(token);
    assert.equal(again.status, 401);
    assert.equal(again.body.error, 'invalid_token');
  });

  it('answers an unknown address exactly as a known one, and mails nobody', async () => {
    const known = await seller.polar.customers.create({ email: freshEmail() });
    const unknownEmail = freshEmail();
    const body = (email: string) => ({ organization_id: seller.organizationId, email });
    const forUnknown = await callV1(api, null, 'POST', requestPath, body(unknownEmail));
    const forKnown = await callV1(api, null, 'POST', requestPath, body(known.email));
    assert.deepEqual(forUnknown, forKnown);
    assert.equal(forKnown.status, 202);
    await waitForMail({ to: known.email, subject: /^Sign in/ });
    // The unknown address's workflow started first and has no mail to wait for.
    await sleep(500);
    assert.deepEqual(await capturedMailsTo(unknownEmail), []);
  });

  it('opens the portal on the page asked for, and refuses a path off the portal', async () => {
    const customer = await seller.polar.customers.create({ email: freshEmail() });
    const returnTo = `/portal/subscriptions/${randomUUID()}`;
    const token = await requestLink(` ${customer.email} `, { return_to: returnTo });
    assert.equal((await authenticate(token)).body.return_to, returnTo);

    for (const offsite of ['https://evil.example/portal', '//evil.example', '/dashboard']) {
      const refused = await callV1(api, null, 'POST', requestPath, {
        organization_id: seller.organizationId,
        email: customer.email,
        return_to: offsite,
      });
      assert.equal(refused.status, 422, offsite);
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'return_to']);
    }
  });

  it('finds the organization by slug, answers 404 for an unknown one, 422 for a bad address', async () => {
    const customer = await seller.polar.customers.create({ email: freshEmail() });
    const organization = await seller.polar.organizations.get({ id: seller.organizationId });
    const bySlug = await callV1(api, null, 'POST', requestPath, {
      organization_slug: organization.slug,
      email: customer.email,
    });
    assert.equal(bySlug.status, 202);
    await waitForMail({ to: customer.email, subject: /^Sign in/ });

    const unknown = await callV1(api, null, 'POST', requestPath, {
      organization_id: randomUUID(),
      email: customer.email,
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'ResourceNotFound');
    const badEmail = await callV1(api, null, 'POST', requestPath, {
      organization_id: seller.organizationId,
      email: 'not an address',
    });
    assert.equal(badEmail.status, 422);
  });

  it('refuses an expired link, a made-up token and an empty one', async () => {
    const customer = await seller.polar.customers.create({ email: freshEmail() });
    const token = await requestLink(customer.email);
    await api.orm.em
      .fork()
      .nativeUpdate(
        CustomerSignInLink,
        { tokenHash: hashToken(token) },
        { expiresAt: new Date(Date.now() - 1000) },
      );
    const expired = await authenticate(token);
    assert.equal(expired.status, 401);
    assert.equal(expired.body.error, 'invalid_token');
    assert.equal((await authenticate(`${signInLinkTokenPrefix}made-up`)).status, 401);
    assert.equal((await authenticate('polar_cst_not-a-link')).status, 401);
    assert.equal((await authenticate('')).status, 422);
  });

  it('never lets a deleted customer in, nor a link mailed to an address the customer left', async () => {
    const deleted = await seller.polar.customers.create({ email: freshEmail() });
    const issuedBefore = await requestLink(deleted.email);
    await seller.polar.customers.delete({ id: deleted.id });
    assert.equal((await authenticate(issuedBefore)).status, 401);
    // Asked for after the deletion: no mail.
    const afterDeletion = await callV1(api, null, 'POST', requestPath, {
      organization_id: seller.organizationId,
      email: deleted.email,
    });
    assert.equal(afterDeletion.status, 202);
    await sleep(1500);
    assert.equal((await capturedMailsTo(deleted.email)).length, 1);

    const moved = await seller.polar.customers.create({ email: freshEmail() });
    const toOldAddress = await requestLink(moved.email);
    await seller.polar.customers.update({
      id: moved.id,
      customerUpdate: { email: freshEmail() },
    });
    assert.equal((await authenticate(toOldAddress)).status, 401);
  });

  it('a retried lookup re-issues the request’s one link: only the newest token opens it', async () => {
    const customer = await seller.polar.customers.create({ email: freshEmail() });
    const input = {
      organizationId: seller.organizationId,
      email: customer.email,
      returnTo: null,
      linkId: randomUUID(),
    };
    const first = await signInLinkForEmail(api.orm.em.fork(), input);
    const retried = await signInLinkForEmail(api.orm.em.fork(), input);
    assert.ok(first && retried);
    assert.notEqual(first.token, retried.token);
    const rows = await api.orm.em.fork().find(CustomerSignInLink, { customer: customer.id });
    assert.deepEqual(
      rows.map((row) => [row.id, row.tokenHash]),
      [[input.linkId, hashToken(retried.token)]],
    );
    assert.equal((await authenticate(first.token)).status, 401);
    assert.equal((await authenticate(retried.token)).status, 200);
    // Once used, a late retry issues nothing more.
    assert.equal(await signInLinkForEmail(api.orm.em.fork(), input), null);
  });

  it('portalSignInUrl: a mailed link opening the portal on a subscription, a week long', async () => {
    const customer = await seller.polar.customers.create({ email: freshEmail() });
    const returnTo = `/portal/subscriptions/${randomUUID()}`;
    const em = api.orm.em.fork();
    const url = await portalSignInUrl(em, {
      customerId: customer.id,
      returnTo,
      publicUrl: api.config.api.publicUrl,
    });
    assert.ok(url.startsWith(`${api.config.api.publicUrl}/portal/sign-in?token=`));
    const token = tokenOfLink(url);
    const link = await em.findOneOrFail(CustomerSignInLink, { tokenHash: hashToken(token) });
    const daysLeft = (link.expiresAt.getTime() - Date.now()) / 86_400_000;
    assert.ok(daysLeft > 6.9 && daysLeft <= 7, `expires in ${daysLeft} days`);
    const opened = await authenticate(token);
    assert.equal(opened.body.return_to, returnTo);
    assert.equal((await authenticate(token)).status, 401);

    await assert.rejects(
      portalSignInUrl(em, {
        customerId: customer.id,
        returnTo: 'https://evil.example/portal',
        publicUrl: api.config.api.publicUrl,
      }),
      /Not a portal path/,
    );
    await seller.polar.customers.delete({ id: customer.id });
    await assert.rejects(
      portalSignInUrl(em.fork(), { customerId: customer.id, publicUrl: api.config.api.publicUrl }),
      /Customer not found/,
    );
    const live = await em.fork().count(Customer, { id: customer.id, deletedAt: null });
    assert.equal(live, 0);
  });
});

describe('portal sign-in limits', () => {
  let open: TestApi;
  let limited: Awaited<ReturnType<typeof startApiServer>>;
  let seller: Seller;
  // At 0.4: 4 requests per IP and 2 per address in their windows, 12 authentications per IP.
  const scale = 0.4;
  const limits = publicLimits(scale);

  before(async () => {
    const config = loadRuntimeConfig();
    [open, limited] = await Promise.all([
      startCommerceApi(),
      startApiServer(
        { ...config, auth: { ...config.auth, rateLimit: { enabled: true, scale } } },
        { host: '127.0.0.1', port: 0 },
      ),
    ]);
    seller = await createSeller(open);
  });
  after(() => Promise.all([open.close(), limited.close()]));
  const clearCounters = () =>
    open.orm.em
      .getConnection()
      .execute("delete from rate_limits where key like 'v1.portalSignIn%'", [], 'run');
  beforeEach(clearCounters);
  after(clearCounters);

  const ask = (email: string) =>
    fetch(`${limited.url}${requestPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organization_id: seller.organizationId, email }),
    });

  it('limits requests per address and per IP, 429 with Retry-After', async () => {
    assert.equal(limits.portalSignInEmail.max, 2);
    assert.equal(limits.portalSignInRequest.max, 4);
    const email = `buyer-${randomUUID().slice(0, 8)}@example.com`;
    assert.equal((await ask(email)).status, 202);
    // The same address in another case counts as the same.
    assert.equal((await ask(email.toUpperCase())).status, 202);
    const perEmail = await ask(email);
    assert.equal(perEmail.status, 429);
    assert.deepEqual(await perEmail.json(), {
      error: 'TooManyRequests',
      detail: commerceErrors.TooManyRequests.detail,
    });
    const retryAfter = Number(perEmail.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= limits.portalSignInEmail.windowSeconds);

    // The fourth request of this IP is still allowed (another address); the fifth is not.
    assert.equal((await ask(`other-${email}`)).status, 202);
    assert.equal((await ask(`third-${email}`)).status, 429);
  });

  it('limits authentications per IP', async () => {
    const { max } = limits.portalSignInAuthenticate;
    const tryToken = () =>
      fetch(`${limited.url}${authenticatePath}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: `${signInLinkTokenPrefix}guess-${randomUUID()}` }),
      });
    for (let attempt = 1; attempt <= max; attempt++) {
      assert.equal((await tryToken()).status, 401, `attempt ${attempt}`);
    }
    assert.equal((await tryToken()).status, 429);
  });
});
