import assert from 'node:assert/strict';
import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { JSONToPayload } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { MailActivities } from '../activities/mail/index.ts';
import { ConfigurationError, loadRuntimeConfig, type PayloadKey } from '../config/env.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { sendEmail } from '../workflows/send-email.ts';
import { connectTemporal } from './client.ts';
import {
  encryptedEncoding,
  keyIdMetadata,
  PayloadDecryptionError,
  PayloadEncryptionCodec,
  temporalDataConverter,
} from './payload-codec.ts';
import { historyWithoutCodec } from './testing.ts';
import { workflowsPath } from './workflow-bundle.ts';

Runtime.install({ logger: new DefaultLogger('WARN') });

const newKey = (id: string): PayloadKey => ({ id, key: createSecretKey(randomBytes(32)) });
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');
const secret = `https://tollgate.example/api/auth/reset-password/${randomUUID()}`;
const plain = () => defaultPayloadConverter.toPayload({ url: secret });
const decodedValue = (payload: Payload | undefined) =>
  payload && defaultPayloadConverter.fromPayload(payload);

async function encrypted(keys: PayloadKey[]): Promise<Payload> {
  const [payload] = await new PayloadEncryptionCodec(keys).encode([plain()]);
  assert.ok(payload);
  return payload;
}

const refusal = (message: RegExp) => (error: unknown) =>
  error instanceof PayloadDecryptionError && message.test(error.message);

describe('payload codec', () => {
  it('encrypts a payload under the current key and reads it back', async () => {
    const current = newKey('current');
    const payload = await encrypted([current, newKey('older')]);
    assert.equal(text(payload.metadata?.encoding), encryptedEncoding);
    assert.equal(text(payload.metadata?.[keyIdMetadata]), 'current');
    assert.equal(text(payload.data).includes(secret), false);
    const [decoded] = await new PayloadEncryptionCodec([current]).decode([payload]);
    assert.deepEqual(decodedValue(decoded), { url: secret });
  });

  it('passes a payload written without it through unchanged', async () => {
    const recordedBefore = plain();
    const [decoded] = await new PayloadEncryptionCodec([newKey('k')]).decode([recordedBefore]);
    assert.equal(decoded, recordedBefore);
  });

  it('reads what an old key encrypted once a new key is put in front', async () => {
    const old = newKey('2025');
    const payload = await encrypted([old]);
    const rotated = new PayloadEncryptionCodec([newKey('2026'), old]);
    const [decoded] = await rotated.decode([payload]);
    assert.deepEqual(decodedValue(decoded), { url: secret });
    const [reencrypted] = await rotated.encode([plain()]);
    assert.equal(text(reencrypted?.metadata?.[keyIdMetadata]), '2026');
  });

  it('refuses a payload of a key it does not hold, naming the key', async () => {
    const payload = await encrypted([newKey('retired')]);
    await assert.rejects(
      new PayloadEncryptionCodec([newKey('current')]).decode([payload]),
      refusal(/key "retired", which TOLLGATE_PAYLOAD_KEYS does not hold/),
    );
  });

  it('refuses a payload under a different key of the same id', async () => {
    const payload = await encrypted([newKey('main')]);
    await assert.rejects(
      new PayloadEncryptionCodec([newKey('main')]).decode([payload]),
      refusal(/key "main" does not decrypt: .* another key under that id, or .* altered/),
    );
  });

  it('refuses altered data, a shortened tag and a swapped key id', async () => {
    const first = newKey('first');
    const second = { id: 'second', key: first.key };
    const codec = new PayloadEncryptionCodec([first, second]);
    const payload = await encrypted([first]);
    const data = Buffer.from(payload.data ?? []);
    const flipped = Buffer.from(data);
    flipped[flipped.length - 1] = (flipped.at(-1) ?? 0) ^ 1;
    const altered: Payload[] = [
      { ...payload, data: flipped },
      { ...payload, data: data.subarray(0, 12 + 8) },
      { ...payload, data: data.subarray(0, 5) },
      // Same key bytes under another id: the id is authenticated with the data.
      { ...payload, metadata: { ...payload.metadata, [keyIdMetadata]: Buffer.from('second') } },
    ];
    for (const payload of altered) {
      await assert.rejects(codec.decode([payload]), refusal(/does not decrypt/));
    }
  });

  it('is required: no data converter without keys', () => {
    assert.throws(
      () => temporalDataConverter(undefined),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /^TOLLGATE_PAYLOAD_KEYS must be set/.test(error.message),
    );
  });
});

describe('payload keys rotated under running workflows (Temporal dev server)', () => {
  const config = loadRuntimeConfig();
  const settings = (payloadKeys: PayloadKey[]) => ({ ...config.temporal, payloadKeys });

  it('finishes a workflow started under the old key on workers holding the new key in front', async () => {
    const old = newKey(`old-${randomUUID()}`);
    const current = newKey(`new-${randomUUID()}`);
    const taskQueue = `test-payload-rotation-${randomUUID()}`;
    const workflowId = workflowIds.email(`rotation:${randomUUID()}`);
    const message = {
      id: workflowId,
      to: 'rotation@example.com',
      subject: 'Reset',
      text: secret,
      html: `<a href="${secret}">Reset</a>`,
    };

    // Started by a client that knows only the old key, before any worker of the new one runs.
    const before = await connectTemporal(settings([old]));
    const after = await connectTemporal(settings([current, old]));
    const connection = await NativeConnection.connect({ address: config.temporal.address });
    try {
      await before.workflow.start(sendEmail, { workflowId, taskQueue, args: [message] });
      const activities: MailActivities = {
        sendEmail: async ({ text }) => ({ messageId: `<${text.length}@rotation.test>` }),
      };
      const worker = await Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue,
        workflowsPath,
        activities,
        dataConverter: temporalDataConverter([current, old]),
      });
      const result = await worker.runUntil(after.workflow.getHandle(workflowId).result());
      assert.deepEqual(result, { messageId: `<${secret.length}@rotation.test>` });

      // On the server: the input under the old key, the result under the new, neither readable.
      const { text: seen, payloads } = await historyWithoutCodec(config.temporal, workflowId);
      assert.equal(seen.includes(secret), false);
      const keyIds = new Set(
        payloads.map((payload) => text(JSONToPayload(payload).metadata?.[keyIdMetadata])),
      );
      assert.ok(keyIds.has(old.id) && keyIds.has(current.id), [...keyIds].join(', '));
      // A client without the new key cannot read what the new key wrote.
      await assert.rejects(
        before.workflow.getHandle(workflowId).result(),
        refusal(/which TOLLGATE_PAYLOAD_KEYS does not hold/),
      );
    } finally {
      await before.connection.close();
      await after.connection.close();
      await connection.close();
    }
  });
});
