import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  checkDeliveries,
  type DeliveryRecord,
  eventKey,
  outboxEventKeySql,
  type SoakReceiver,
  startReceivers,
} from '../bench/soak/receivers.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../commerce/testing.ts';
import { eventually } from './eventually.ts';

describe('the soak’s webhook receivers (bench/soak/receivers.ts)', () => {
  let api: TestApi;
  let seller: Seller;
  let receivers: SoakReceiver[];

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    receivers = await startReceivers([
      { name: 'healthy' },
      // Each misbehaves on its first delivery, then is told to behave: the sender's retry
      // (10 s later on the default schedule) must then get through under the same webhook-id.
      { name: 'failing', failFraction: 1 },
      { name: 'hanging', hangFraction: 1, hangMs: 12_000 },
      { name: 'down' },
    ]);
  });
  after(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await api.close();
  });

  const receiver = (name: string) =>
    receivers.find((candidate) => candidate.name === name) ?? assert.fail(name);
  const until = (what: string, found: () => boolean) =>
    eventually(async () => found(), Boolean, { what, timeoutMs: 90_000 });

  it('records and verifies what Tollgate sends, misbehaving as told, and finds nothing wrong', async () => {
    const events = ['customer.created', 'customer.updated'];
    const endpointIds = new Map<string, string>();
    for (const { name, url } of receivers) {
      const endpoint = await seller.polar.webhooks.createWebhookEndpoint({
        url,
        format: 'raw',
        events: events as never,
      });
      receiver(name).setSecret(endpoint.secret);
      endpointIds.set(name, endpoint.id);
    }
    await receiver('down').goDown();
    const customer = await seller.polar.customers.create({
      email: `soak-${Date.now()}@example.com`,
    });
    await seller.polar.customers.update({ id: customer.id, customerUpdate: { name: 'Renamed' } });

    await until('the failing receiver failed once', () =>
      receiver('failing').records.some((record) => record.outcome === 'failed'),
    );
    receiver('failing').setBehaviour({});
    await until('the hanging receiver hung once', () =>
      receiver('hanging').records.some((record) => record.outcome === 'hung'),
    );
    receiver('hanging').setBehaviour({});
    const downEndpoint = endpointIds.get('down') ?? '';
    await eventually(
      () => seller.polar.webhooks.listWebhookDeliveries({ endpointId: [downEndpoint] }),
      (log) => log.result.items.some((item) => !item.succeeded),
      { what: 'a refused delivery to the receiver that is down' },
    );
    await receiver('down').comeBack();

    // What Tollgate emitted for the seller (a fresh organization: only these events and its own).
    const emitted = await api.orm.em
      .fork()
      .getConnection()
      .execute<{ type: string; key: string }[]>(
        `select type, ${outboxEventKeySql} as key from outbox_events
         where organization_id = ? order by created_at, id`,
        [seller.organizationId],
      );
    const expectedKeys = emitted.filter((row) => events.includes(row.type)).map((row) => row.key);
    assert.equal(expectedKeys.length, 2);
    const expected = Object.fromEntries(receivers.map(({ name }) => [name, expectedKeys]));
    const records = () => receivers.flatMap((each) => each.records);
    await until('every event accepted everywhere', () =>
      receivers.every((each) =>
        expectedKeys.every((key) =>
          each.records.some((record) => record.eventKey === key && record.outcome === 'accepted'),
        ),
      ),
    );
    assert.deepEqual(checkDeliveries(records(), expected), []);
    assert.ok(records().every((record) => record.signatureValid === true));
    // The retries repeated their webhook-id: a failed or hung attempt and its accepted retry.
    for (const name of ['failing', 'hanging']) {
      const [first, ...rest] = receiver(name).records;
      const retry = rest.find((record) => record.eventKey === first?.eventKey);
      assert.equal(retry?.webhookId, first?.webhookId, `${name} retried under one webhook-id`);
    }
    assert.equal(receiver('healthy').records.length, 2);
    assert.deepEqual(
      receiver('healthy').records.map((record) => [record.eventType, record.bodyId]),
      [
        ['customer.created', customer.id],
        ['customer.updated', customer.id],
      ],
    );
  });

  it('reports missing, out-of-order, re-identified and badly signed deliveries', () => {
    const [first, second, third] = ['a', 'b', 'c'].map((id) =>
      eventKey('order.paid', '2026-11-27T08:00:00.000000Z', id),
    ) as [string, string, string];
    const record = (
      key: string,
      webhookId: string,
      fields: Partial<DeliveryRecord> = {},
    ): DeliveryRecord => ({
      receiver: 'r1',
      webhookId,
      eventType: 'order.paid',
      eventTimestamp: '2026-11-27T08:00:00.000000Z',
      bodyId: key.slice(-1),
      eventKey: key,
      receivedAt: 0,
      outcome: 'accepted',
      signatureValid: true,
      ...fields,
    });
    const violations = checkDeliveries(
      [
        record(second, 'w2'),
        record(first, 'w1', { outcome: 'failed' }),
        record(first, 'w1'),
        // A retry under its own webhook-id is a second event to the receiver, however equal.
        record(second, 'w2-again'),
        record(first, 'w1', { signatureValid: false }),
      ],
      { r1: [first, second, third] },
    );
    assert.deepEqual(
      violations.map((violation) => [violation.kind, violation.eventKey, violation.webhookIds]),
      [
        ['bad-signature', first, ['w1']],
        ['duplicate', second, ['w2', 'w2-again']],
        ['out-of-order', first, ['w1', 'w2']],
        ['missing', third, []],
      ],
    );
    // Repeats under one webhook-id (at-least-once) are fine.
    assert.deepEqual(
      checkDeliveries([record(first, 'w1'), record(first, 'w1')], { r1: [first] }),
      [],
    );
  });
});
