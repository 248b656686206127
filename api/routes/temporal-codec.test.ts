import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  type JSONPayload,
  JSONToPayload,
  payloadToJSON,
} from '@temporalio/common/lib/proto-utils.js';
import { tokenKinds } from '../../accounts/verification-tokens.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { User } from '../../db/entities/index.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import { extractLinks, waitForMail } from '../../integrations/mail/testing.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import {
  encryptedEncoding,
  keyIdMetadata,
  PayloadEncryptionCodec,
} from '../../temporal/payload-codec.ts';
import { historyWithoutCodec } from '../../temporal/testing.ts';
import { browserAuthClient } from '../auth/testing.ts';
import { startTestApi } from '../testing.ts';

const uiOrigin = 'http://temporal-ui.test:8080';
const opsToken = process.env.TOLLGATE_OPS_TOKEN ?? '';
const base64 = (value: string) => Buffer.from(value).toString('base64');
const fromBase64 = (value: string | null | undefined) =>
  Buffer.from(value ?? '', 'base64').toString('utf8');

describe('Temporal payloads: encrypted on the server, readable through the codec endpoint', () => {
  const baseConfig = loadRuntimeConfig();
  // The Web UI's origin, as TEMPORAL_UI_URL names it: the one origin allowed to call from a browser.
  const config = { ...baseConfig, temporal: { ...baseConfig.temporal, uiUrl: `${uiOrigin}/` } };
  let api: Awaited<ReturnType<typeof startTestApi>>;
  let origin: string;
  before(async () => {
    api = await startTestApi(config);
    origin = new URL(api.config.api.publicUrl).origin;
  });
  after(() => api.close());

  const codecCall = (path: 'encode' | 'decode', payloads: JSONPayload[], headers = {}) =>
    fetch(`${api.url}/api/ops/temporal-codec/${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${opsToken}`,
        'content-type': 'application/json',
        'x-namespace': config.temporal.namespace,
        ...headers,
      },
      body: JSON.stringify({ payloads }),
    });

  async function signedInUser(role: 'user' | 'admin') {
    const browser = browserAuthClient(api.url, origin);
    const email = `codec-${randomUUID()}@example.com`;
    const { data, error } = await browser.client.signUp.email({
      email,
      password: 'a long enough password',
      name: 'Codec',
    });
    assert.equal(error, null);
    await api.orm.em.fork().nativeUpdate(User, { id: data?.user.id ?? '' }, { role });
    return { ...browser, email };
  }

  /** The input of a mail's workflow, as the Temporal server stores it. */
  async function storedMailInput(workflowId: string) {
    await api.temporal.workflow.getHandle(workflowId).result();
    const seen = await historyWithoutCodec(config.temporal, workflowId);
    const [input] = seen.payloads;
    assert.ok(input);
    return { seen, input };
  }

  it('keeps a mailed reset link out of everything the Temporal server stores', async () => {
    const { email } = await signedInUser('user');
    const asked = await fetch(`${api.url}/api/auth/request-password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ email, redirectTo: `${origin}/reset` }),
    });
    assert.equal(asked.status, 200);
    const mail = await waitForMail({ to: email, subject: /reset/i });
    const [link = ''] = extractLinks(mail);
    const token = /\/reset-password\/([^?]+)/.exec(link)?.[1] ?? '';
    assert.ok(token);
    const mailId = `${tokenKinds.passwordReset.prefix}:${hashToken(token).slice(0, 32)}`;

    // What `temporal workflow show` and the Web UI without a codec print.
    const { seen, input } = await storedMailInput(workflowIds.email(mailId));
    assert.equal(seen.text.includes(token), false, 'the reset token is readable on the server');
    assert.equal(seen.text.includes(email), false, 'the address is readable on the server');
    const [currentKey] = config.temporal.payloadKeys ?? [];
    assert.equal(fromBase64(input.metadata?.encoding), encryptedEncoding);
    assert.equal(fromBase64(input.metadata?.[keyIdMetadata]), currentKey?.id);

    // The configured key reads it back, and so does the codec endpoint for the operator.
    const codec = new PayloadEncryptionCodec(config.temporal.payloadKeys ?? []);
    const [decoded] = await codec.decode([JSONToPayload(input)]);
    assert.ok(decoded);
    const message = defaultPayloadConverter.fromPayload<{ to: string; text: string }>(decoded);
    assert.equal(message.to, email);
    assert.ok(message.text.includes(link));
    const response = await codecCall('decode', [input]);
    assert.equal(response.status, 200);
    const { payloads } = (await response.json()) as { payloads: JSONPayload[] };
    assert.deepEqual(payloads, [payloadToJSON(decoded)]);
  });

  it('decodes for the operations token or an admin session, for nobody else', async () => {
    const secret = payloadToJSON(defaultPayloadConverter.toPayload({ token: randomUUID() }));
    const encoded = await codecCall('encode', [secret]);
    assert.equal(encoded.status, 200);
    const { payloads } = (await encoded.json()) as { payloads: JSONPayload[] };
    const body = JSON.stringify({ payloads });
    const json = { 'content-type': 'application/json' };
    const decode = `${api.url}/api/ops/temporal-codec/decode`;

    const anonymous = await fetch(decode, { method: 'POST', headers: json, body });
    assert.equal(anonymous.status, 401);
    const guessed = await fetch(decode, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${'x'.repeat(64)}` },
      body,
    });
    assert.equal(guessed.status, 401);
    const user = await signedInUser('user');
    const asUser = await user.fetch(decode, { method: 'POST', headers: json, body });
    assert.equal(asUser.status, 403);
    for (const refused of [anonymous, guessed, asUser]) {
      assert.equal(JSON.stringify(await refused.json()).includes(fromBase64(secret.data)), false);
    }

    const admin = await signedInUser('admin');
    const asAdmin = await admin.fetch(decode, { method: 'POST', headers: json, body });
    assert.equal(asAdmin.status, 200);
    assert.deepEqual(await asAdmin.json(), { payloads: [secret] });
  });

  it('lets only the Web UI call from a browser', async () => {
    const preflight = (from: string) =>
      fetch(`${api.url}/api/ops/temporal-codec/decode`, {
        method: 'OPTIONS',
        headers: {
          origin: from,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace',
        },
      });
    const fromUi = await preflight(uiOrigin);
    assert.equal(fromUi.status, 204);
    assert.equal(fromUi.headers.get('access-control-allow-origin'), uiOrigin);
    assert.equal(fromUi.headers.get('access-control-allow-credentials'), 'true');
    assert.match(fromUi.headers.get('access-control-allow-headers') ?? '', /X-Namespace/i);

    const fromElsewhere = await preflight('https://attacker.example');
    assert.equal(fromElsewhere.status, 403);
    assert.equal(fromElsewhere.headers.get('access-control-allow-origin'), null);

    const plain = payloadToJSON(defaultPayloadConverter.toPayload('hello'));
    const call = await codecCall('decode', [plain], { origin: uiOrigin });
    assert.equal(call.status, 200);
    assert.equal(call.headers.get('access-control-allow-origin'), uiOrigin);
    const elsewhere = await codecCall('decode', [plain], { origin: 'https://attacker.example' });
    assert.equal(elsewhere.headers.get('access-control-allow-origin'), null);
  });

  it('passes unencrypted payloads through and refuses altered ones with 400', async () => {
    const plain = payloadToJSON(
      defaultPayloadConverter.toPayload({ recorded: 'before the codec' }),
    );
    const passed = await codecCall('decode', [plain]);
    assert.deepEqual(await passed.json(), { payloads: [plain] });

    const encoded = await codecCall('encode', [plain]);
    const [payload] = ((await encoded.json()) as { payloads: JSONPayload[] }).payloads;
    assert.ok(payload?.data);
    const data = Buffer.from(payload.data, 'base64');
    data[20] = (data[20] ?? 0) ^ 1;
    const altered = await codecCall('decode', [{ ...payload, data: data.toString('base64') }]);
    assert.equal(altered.status, 400);
    const refusal = (await altered.json()) as { code: string; message: string };
    assert.equal(refusal.code, 'INVALID_PAYLOAD');
    assert.match(refusal.message, /does not decrypt/);

    const unknownKey = await codecCall('decode', [
      { ...payload, metadata: { ...payload.metadata, [keyIdMetadata]: base64('retired') } },
    ]);
    assert.equal(unknownKey.status, 400);
    assert.match(((await unknownKey.json()) as { message: string }).message, /"retired"/);

    const malformed = await codecCall('decode', [{ data: 'not base64 !' }]);
    assert.equal(malformed.status, 400);
    assert.equal(((await malformed.json()) as { code: string }).code, 'VALIDATION_ERROR');
  });
});
