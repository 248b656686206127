import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { validateEvent, WebhookVerificationError } from '@polar-sh/sdk/webhooks';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../../devstack/eventually.ts';
import { createAccessToken } from '../access-tokens/service.ts';
import { signedInMember } from '../access-tokens/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { webhookBody } from './payloads.ts';
import { retryDelayMs } from './settings.ts';
import { signWebhook } from './signing.ts';
import { type Receiver, startReceiver } from './testing.ts';

const freshEmail = () => `webhooks-${randomBytes(5).toString('hex')}@example.com`;

describe('webhook endpoints (/v1/webhooks/endpoints)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
  });
  after(() => api.close());

  it('creates an endpoint with a generated whsec_ secret, and reads, lists, updates it', async () => {
    const created = await seller.polar.webhooks.createWebhookEndpoint({
      url: 'https://hooks.example.com/polar',
      format: 'raw',
      events: ['order.paid', 'customer.created', 'order.paid'],
    });
    assert.match(created.secret, /^whsec_[\w-]{43}$/);
    assert.deepEqual(created.events, ['order.paid', 'customer.created']);
    assert.equal(created.organizationId, seller.organizationId);
    assert.equal(created.modifiedAt, null);

    const read = await seller.polar.webhooks.getWebhookEndpoint({ id: created.id });
    assert.equal(read.url, created.url);
    const page = await seller.polar.webhooks.listWebhookEndpoints({});
    assert.deepEqual(
      page.result.items.map((endpoint) => endpoint.id),
      [created.id],
    );

    const updated = await seller.polar.webhooks.updateWebhookEndpoint({
      id: created.id,
      webhookEndpointUpdate: { format: 'slack', events: ['product.created'] },
    });
    assert.equal(updated.format, 'slack');
    assert.deepEqual(updated.events, ['product.created']);
    assert.equal(updated.url, 'https://hooks.example.com/polar');
    assert.ok(updated.modifiedAt instanceof Date);
  });

  it('keeps a secret given at creation (32 characters at least) and resets it on demand', async () => {
    const secret = `whsec_${'k'.repeat(32)}`;
    const created = await seller.polar.webhooks.createWebhookEndpoint({
      url: 'https://hooks.example.com/given',
      format: 'raw',
      events: ['customer.created'],
      secret,
    });
    assert.equal(created.secret, secret);
    const reset = await seller.polar.webhooks.resetWebhookEndpointSecret({ id: created.id });
    assert.notEqual(reset.secret, secret);
    assert.match(reset.secret, /^whsec_/);

    const short = await callV1(api, seller.token, 'POST', '/v1/webhooks/endpoints', {
      url: 'https://hooks.example.com/short',
      format: 'raw',
      events: [],
      secret: 'too-short',
    });
    assert.equal(short.status, 422);
    assert.deepEqual(short.body.detail[0].loc, ['body', 'secret']);
  });

  it('answers the signing secret on create and reset only, never to readers', async () => {
    const endpoint = await seller.polar.webhooks.createWebhookEndpoint({
      url: 'https://hooks.example.com/secretive',
      format: 'raw',
      events: ['order.paid'],
    });
    assert.match(endpoint.secret, /^whsec_/);
    const endpointPath = `/v1/webhooks/endpoints/${endpoint.id}`;
    const { token: readToken } = await createAccessToken(api.orm.em.fork(), {
      organizationId: seller.organizationId,
      comment: 'Reads webhooks',
      scopes: ['webhooks:read'],
    });
    const reader = await signedInMember(api, seller.organizationId, 'member');

    /** Every way a reader (or the writer's own token) reads the endpoint back. */
    const reads = async () => [
      await callV1(api, readToken, 'GET', endpointPath),
      await callV1(api, readToken, 'GET', '/v1/webhooks/endpoints'),
      await reader.call('GET', endpointPath),
      await reader.call('GET', '/v1/webhooks/endpoints'),
      await callV1(api, seller.token, 'GET', endpointPath),
    ];
    /** Each read answers 200, the endpoint with an empty secret, and never the secret itself. */
    const assertSecretHidden = async (secret: string) => {
      for (const answer of await reads()) {
        assert.equal(answer.status, 200);
        const endpoints = answer.body.items ?? [answer.body];
        assert.ok(endpoints.some((one: { id: string }) => one.id === endpoint.id));
        for (const one of endpoints) assert.equal(one.secret, '');
        assert.ok(!JSON.stringify(answer.body).includes(secret));
      }
    };
    await assertSecretHidden(endpoint.secret);
    // Polar's SDK takes the empty secret (its schema asks for a string).
    const viaSdk = await seller.polar.webhooks.getWebhookEndpoint({ id: endpoint.id });
    assert.equal(viaSdk.secret, '');
    const updated = await seller.polar.webhooks.updateWebhookEndpoint({
      id: endpoint.id,
      webhookEndpointUpdate: { events: ['order.paid', 'order.refunded'] },
    });
    assert.equal(updated.secret, '');

    // Readers cannot reset it to learn a new one.
    const byToken = await callV1(api, readToken, 'PATCH', `${endpointPath}/secret`);
    assert.equal(byToken.status, 403);
    assert.equal(byToken.body.error, 'insufficient_scope');
    const byMember = await reader.call('PATCH', `${endpointPath}/secret`);
    assert.equal(byMember.status, 403);
    assert.equal(byMember.body.error, 'insufficient_scope');

    const reset = await seller.polar.webhooks.resetWebhookEndpointSecret({ id: endpoint.id });
    assert.match(reset.secret, /^whsec_/);
    assert.notEqual(reset.secret, endpoint.secret);
    await assertSecretHidden(reset.secret);
  });

  it('refuses http URLs except to the local host outside production, and unknown events', async () => {
    await assert.rejects(
      seller.polar.webhooks.createWebhookEndpoint({
        url: 'http://hooks.example.com/plain',
        format: 'raw',
        events: [],
      }),
      (error) => {
        assert.ok(error instanceof HTTPValidationError, String(error));
        assert.deepEqual(error.detail?.[0]?.loc, ['body', 'url']);
        return true;
      },
    );
    const local = await seller.polar.webhooks.createWebhookEndpoint({
      url: 'http://127.0.0.1:9/hooks',
      format: 'raw',
      events: [],
    });
    assert.equal(local.url, 'http://127.0.0.1:9/hooks');
    const unknown = await callV1(api, seller.token, 'POST', '/v1/webhooks/endpoints', {
      url: 'https://hooks.example.com/x',
      format: 'raw',
      events: ['order.exploded'],
    });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.body.detail[0].loc, ['body', 'events', 0]);
    const badFormat = await callV1(api, seller.token, 'POST', '/v1/webhooks/endpoints', {
      url: 'https://hooks.example.com/x',
      format: 'xml',
      events: [],
    });
    assert.equal(badFormat.status, 422);
  });

  it('keeps organizations apart: another seller can neither see nor change an endpoint', async () => {
    const mine = await seller.polar.webhooks.createWebhookEndpoint({
      url: 'https://hooks.example.com/mine',
      format: 'raw',
      events: [],
    });
    await assert.rejects(
      other.polar.webhooks.getWebhookEndpoint({ id: mine.id }),
      ResourceNotFound,
    );
    await assert.rejects(
      other.polar.webhooks.updateWebhookEndpoint({
        id: mine.id,
        webhookEndpointUpdate: { url: 'https://evil.example.com' },
      }),
      ResourceNotFound,
    );
    await assert.rejects(
      other.polar.webhooks.resetWebhookEndpointSecret({ id: mine.id }),
      ResourceNotFound,
    );
    await assert.rejects(
      other.polar.webhooks.deleteWebhookEndpoint({ id: mine.id }),
      ResourceNotFound,
    );
    const theirs = await other.polar.webhooks.listWebhookEndpoints({});
    assert.ok(theirs.result.items.every((endpoint) => endpoint.id !== mine.id));
    const replay = await callV1(
      api,
      other.token,
      'POST',
      `/v1/webhooks/endpoints/${mine.id}/replay`,
      {
        start_timestamp: '2026-01-01T00:00:00Z',
        end_timestamp: '2027-01-01T00:00:00Z',
      },
    );
    assert.equal(replay.status, 404);
    const deliveries = await other.polar.webhooks.listWebhookDeliveries({ endpointId: mine.id });
    assert.equal(deliveries.result.items.length, 0);

    await seller.polar.webhooks.deleteWebhookEndpoint({ id: mine.id });
    await assert.rejects(
      seller.polar.webhooks.getWebhookEndpoint({ id: mine.id }),
      ResourceNotFound,
    );
  });
});

describe('webhook delivery through the worker process', () => {
  let api: TestApi;
  let seller: Seller;
  let receiver: Receiver;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await api.close();
  });

  it('sends each subscribed event, signed so that validateEvent and standardwebhooks accept it', async () => {
    const endpoint = await seller.polar.webhooks.createWebhookEndpoint({
      url: receiver.url,
      format: 'raw',
      events: ['customer.created', 'customer.updated'],
    });
    const email = freshEmail();
    const customer = await seller.polar.customers.create({ email });
    await seller.polar.customers.update({
      id: customer.id,
      customerUpdate: { name: 'Renamed' },
    });
    await receiver.receivedAtLeast(2, 'two deliveries');
    const [createdDelivery, updatedDelivery] = receiver.received;
    assert.ok(createdDelivery && updatedDelivery);

    // Polar's SDK, given the secret exactly as the API answered it.
    const created = validateEvent(
      createdDelivery.body,
      createdDelivery.headers as Record<string, string>,
      endpoint.secret,
    );
    assert.equal(created.type, 'customer.created');
    assert.equal(created.data.id, customer.id);
    assert.equal(created.data.email, email);
    const updated = validateEvent(
      updatedDelivery.body,
      updatedDelivery.headers as Record<string, string>,
      endpoint.secret,
    );
    assert.equal(updated.type, 'customer.updated');

    // A generic Standard Webhooks receiver: the key is base64 of the secret's UTF-8 bytes.
    const generic = new Webhook(Buffer.from(endpoint.secret, 'utf8').toString('base64'));
    const payload = generic.verify(
      createdDelivery.body,
      createdDelivery.headers as Record<string, string>,
    ) as { type: string };
    assert.equal(payload.type, 'customer.created');
    assert.equal(createdDelivery.headers['content-type'], 'application/json');

    // Tampered bodies and other secrets are refused.
    assert.throws(
      () =>
        validateEvent(
          createdDelivery.body.replace(email, 'x@example.com'),
          createdDelivery.headers as Record<string, string>,
          endpoint.secret,
        ),
      WebhookVerificationError,
    );

    // The log, through the SDK: one successful attempt per event, newest first.
    const log = await seller.polar.webhooks.listWebhookDeliveries({ endpointId: [endpoint.id] });
    const items = log.result.items;
    assert.equal(items.length, 2);
    assert.deepEqual(
      items.map((item) => item.webhookEvent.type),
      ['customer.updated', 'customer.created'],
    );
    assert.ok(items.every((item) => item.succeeded && item.httpCode === 200));
    assert.equal(items[1]?.webhookEvent.id, createdDelivery.headers['webhook-id']);
    assert.equal(items[1]?.webhookEvent.payload, createdDelivery.body);
    assert.equal(items[1]?.response, 'ok');
    const raw = await callV1(
      api,
      seller.token,
      'GET',
      `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`,
    );
    assert.equal(raw.body.items[0].attempt, 1);
    assert.equal(typeof raw.body.items[0].duration_ms, 'number');

    // Time bounds.
    const future = await seller.polar.webhooks.listWebhookDeliveries({
      endpointId: endpoint.id,
      startTimestamp: new Date(Date.now() + 60_000),
    });
    assert.equal(future.result.items.length, 0);

    // Redelivery sends the same event (same id, same bytes) again: 202.
    const eventId = String(createdDelivery.headers['webhook-id']);
    await seller.polar.webhooks.redeliverWebhookEvent({ id: eventId });
    await receiver.receivedAtLeast(3, 'the redelivery');
    assert.equal(receiver.received[2]?.headers['webhook-id'], eventId);
    assert.equal(receiver.received[2]?.body, createdDelivery.body);
    const again = await seller.polar.webhooks.listWebhookDeliveries({ endpointId: endpoint.id });
    assert.equal(again.result.items.length, 3);
  });

  it('sends a test event to an endpoint whatever it subscribes to, and logs its delivery', async () => {
    const endpoint = await seller.polar.webhooks.createWebhookEndpoint({
      url: `${receiver.url}/test`,
      format: 'raw',
      events: [],
    });
    const sent = await callV1(
      api,
      seller.token,
      'POST',
      `/v1/webhooks/endpoints/${endpoint.id}/test`,
    );
    assert.equal(sent.status, 202);
    assert.equal(sent.body.type, 'organization.updated');
    const body = await eventually(
      () => receiver.received.find((request) => request.headers['webhook-id'] === sent.body.id),
      Boolean,
      { what: 'the test event' },
    );
    assert.ok(body);
    // A real event type and shape, so that Polar's SDK takes it.
    const event = validateEvent(body.body, body.headers as Record<string, string>, endpoint.secret);
    assert.equal(event.type, 'organization.updated');
    assert.equal(event.data.id, seller.organizationId);
    const log = await seller.polar.webhooks.listWebhookDeliveries({ endpointId: endpoint.id });
    assert.equal(log.result.items[0]?.webhookEvent.payload, body.body);

    const stranger = await createSeller(api);
    const refused = await callV1(
      api,
      stranger.token,
      'POST',
      `/v1/webhooks/endpoints/${endpoint.id}/test`,
    );
    assert.equal(refused.status, 404);
  });

  it('redelivering an unknown event or another organization’s answers 404', async () => {
    const other = await createSeller(api);
    const event = receiver.received[0]?.headers['webhook-id'];
    assert.ok(event);
    await assert.rejects(
      other.polar.webhooks.redeliverWebhookEvent({ id: String(event) }),
      ResourceNotFound,
    );
  });
});

describe('what a receiver verifies', () => {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const body = JSON.stringify({
    type: 'customer.deleted',
    timestamp: '2026-11-22T00:00:00Z',
    data: {},
  });

  it('standardwebhooks refuses a delivery signed more than 300 s ago (replays)', () => {
    const receiver = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
    const fresh = signWebhook(secret, 'msg_fresh', new Date(), body);
    assert.ok(receiver.verify(body, { ...fresh }));
    const stale = signWebhook(secret, 'msg_stale', new Date(Date.now() - 301_000), body);
    assert.throws(() => receiver.verify(body, { ...stale }), /too old/i);
  });

  it('a generic receiver handed the whsec_ string itself cannot verify (it decodes the rest)', () => {
    const headers = signWebhook(secret, 'msg_1', new Date(), body);
    assert.throws(() => new Webhook(secret).verify(body, { ...headers }));
  });
});

describe('the retry schedule', () => {
  const retryDelaysMs = [10, 60, 300, 1800, 7200, 21600, 43200, 86400, 86400].map((s) => s * 1000);

  it('spreads ten attempts over about three days, then gives up (the endpoint is disabled)', () => {
    const middle = () => 0.5;
    const waits = retryDelaysMs.map((_, index) =>
      retryDelayMs({ retryDelaysMs }, index + 1, middle),
    );
    const days = (waits as number[]).reduce((sum, wait) => sum + wait, 0) / 86_400_000;
    assert.ok(days > 2.5 && days < 3.5, `${days} days`);
    assert.equal(retryDelayMs({ retryDelaysMs }, retryDelaysMs.length + 1), null);
  });

  it('jitters each wait by up to 20% either way', () => {
    assert.equal(
      retryDelayMs({ retryDelaysMs }, 1, () => 0),
      8_000,
    );
    assert.equal(
      retryDelayMs({ retryDelaysMs }, 1, () => 1),
      12_000,
    );
  });
});

describe('payload formats', () => {
  const data = { id: 'c1', email: 'ada@example.com' };

  it("raw is Polar's {type, timestamp, data}", () => {
    const body = JSON.parse(webhookBody('raw', 'customer.created', '2026-11-22T00:00:00Z', data));
    assert.deepEqual(body, { type: 'customer.created', timestamp: '2026-11-22T00:00:00Z', data });
  });

  it('discord and slack are one-line chat messages', () => {
    assert.deepEqual(JSON.parse(webhookBody('discord', 'customer.created', '', data)), {
      content: 'Tollgate customer.created: ada@example.com',
    });
    assert.deepEqual(JSON.parse(webhookBody('slack', 'customer.created', '', data)), {
      text: 'Tollgate customer.created: ada@example.com',
    });
  });
});
