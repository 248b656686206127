import { createHash, createHmac } from 'node:crypto';

/** Credentials and region of an S3-compatible service. */
export interface S3Credentials {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** RFC 3986 encoding as SigV4 wants it: encodeURIComponent leaves !'()* alone. */
const encodeRfc3986 = (value: string) =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

const hmac = (key: Buffer | string, data: string) =>
  createHmac('sha256', key).update(data).digest();

/** `20130524T000000Z` */
const amzDate = (at: Date) => at.toISOString().replace(/[-:]|\.\d{3}/g, '');

/**
 * `url` presigned with AWS Signature V4 in the query string (S3's "query string authentication"):
 * the Host header and `headers` (lower-case names) are signed, the payload is not, so any client
 * can send the request with those header values until `expiresSeconds` after `at`.
 */
export function presignS3Url(
  method: string,
  url: URL,
  credentials: S3Credentials,
  at: Date,
  expiresSeconds: number,
  headers: Record<string, string> = {},
): URL {
  const timestamp = amzDate(at);
  const day = timestamp.slice(0, 8);
  const scope = `${day}/${credentials.region}/s3/aws4_request`;
  const signed = new URL(url);
  signed.searchParams.set('X-Amz-Algorithm', 'AWS4-HMAC-SHA256');
  signed.searchParams.set('X-Amz-Credential', `${credentials.accessKeyId}/${scope}`);
  signed.searchParams.set('X-Amz-Date', timestamp);
  signed.searchParams.set('X-Amz-Expires', String(expiresSeconds));
  const signedHeaders = Object.entries({ ...headers, host: url.host }).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  const signedHeaderNames = signedHeaders.map(([name]) => name).join(';');
  signed.searchParams.set('X-Amz-SignedHeaders', signedHeaderNames);
  const query = [...signed.searchParams]
    .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(value)}`)
    // By code point; `=` sorts below any character of an encoded name, so names decide first.
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .join('&');
  const path = signed.pathname
    .split('/')
    .map((segment) => encodeRfc3986(decodeURIComponent(segment)))
    .join('/');
  const canonicalRequest = [
    method,
    path,
    query,
    signedHeaders.map(([name, value]) => `${name}:${value.trim()}\n`).join(''),
    signedHeaderNames,
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    timestamp,
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const key = ['s3', 'aws4_request'].reduce(
    (derived, part) => hmac(derived, part),
    hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), credentials.region),
  );
  // The query as signed, so that what is sent is byte for byte what was signed.
  signed.search = `${query}&X-Amz-Signature=${hmac(key, stringToSign).toString('hex')}`;
  return signed;
}
