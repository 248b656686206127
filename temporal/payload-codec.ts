import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  type DataConverter,
  METADATA_ENCODING_KEY,
  type Payload,
  type PayloadCodec,
} from '@temporalio/common';
import { JSONToPayload, payloadToJSON } from '@temporalio/common/lib/proto-utils.js';
import { ConfigurationError, type PayloadKey } from '../config/env.ts';

/** The encoding an encrypted payload declares, as Temporal's samples and other SDKs name it. */
export const encryptedEncoding = 'binary/encrypted';
/** The metadata naming the key a payload was encrypted with. */
export const keyIdMetadata = 'encryption-key-id';

const ivLength = 12;
const tagLength = 16;

/** A payload this codec cannot decrypt: its key is not configured, or it does not authenticate. */
export class PayloadDecryptionError extends Error {
  override name = 'PayloadDecryptionError';
}

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

/**
 * Encrypts every payload with AES-256-GCM under the first key, stored as iv | tag | ciphertext
 * of the whole original payload (metadata and data, in Temporal's JSON form), the key id in the
 * clear beside it and bound to it as additional data. Decrypts with whichever configured key the
 * payload names, so keys rotate by putting a new one in front and keeping the old ones until no
 * running workflow holds their payloads. A payload without this encoding (written before the
 * codec, or by a tool) passes through unchanged.
 */
export class PayloadEncryptionCodec implements PayloadCodec {
  readonly #current: PayloadKey;
  readonly #keys: Map<string, PayloadKey>;

  constructor(keys: readonly PayloadKey[]) {
    const [current] = keys;
    if (!current) throw new ConfigurationError('TOLLGATE_PAYLOAD_KEYS must hold a key');
    this.#current = current;
    this.#keys = new Map(keys.map((key) => [key.id, key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.#encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) =>
      text(payload.metadata?.[METADATA_ENCODING_KEY]) === encryptedEncoding
        ? this.#decrypt(payload)
        : payload,
    );
  }

  #encrypt(payload: Payload): Payload {
    const { id, key } = this.#current;
    const iv = randomBytes(ivLength);
    const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(id));
    const plaintext = Buffer.from(JSON.stringify(payloadToJSON(payload)));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      metadata: {
        [METADATA_ENCODING_KEY]: Buffer.from(encryptedEncoding),
        [keyIdMetadata]: Buffer.from(id),
      },
      data: Buffer.concat([iv, cipher.getAuthTag(), ciphertext]),
    };
  }

  #decrypt(payload: Payload): Payload {
    const id = text(payload.metadata?.[keyIdMetadata]);
    const key = this.#keys.get(id)?.key;
    if (!key) {
      throw new PayloadDecryptionError(
        `Payload encrypted with key "${id}", which TOLLGATE_PAYLOAD_KEYS does not hold`,
      );
    }
    const data = Buffer.from(payload.data ?? []);
    try {
      const iv = data.subarray(0, ivLength);
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: tagLength })
        .setAAD(Buffer.from(id))
        .setAuthTag(data.subarray(ivLength, ivLength + tagLength));
      const plaintext = Buffer.concat([
        decipher.update(data.subarray(ivLength + tagLength)),
        decipher.final(),
      ]);
      return JSONToPayload(JSON.parse(plaintext.toString('utf8')));
    } catch {
      throw new PayloadDecryptionError(
        `Payload encrypted with key "${id}" does not decrypt: TOLLGATE_PAYLOAD_KEYS holds another ` +
          'key under that id, or the payload was altered',
      );
    }
  }
}

/** The codec of the configured keys; without keys nothing starts. */
export function payloadCodec(keys: readonly PayloadKey[] | undefined): PayloadEncryptionCodec {
  if (!keys?.length) {
    throw new ConfigurationError(
      'TOLLGATE_PAYLOAD_KEYS must be set (id:key pairs, each key 32 random bytes in base64; ' +
        '`npm start` keeps one in the data folder)',
    );
  }
  return new PayloadEncryptionCodec(keys);
}

/**
 * The data converter of every Temporal client and worker: API, worker process, test workers and
 * replays share it, so whatever one encrypts the others read.
 */
export function temporalDataConverter(keys: readonly PayloadKey[] | undefined): DataConverter {
  return { payloadCodecs: [payloadCodec(keys)] };
}
