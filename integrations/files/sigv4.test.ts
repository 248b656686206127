import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { presignS3Url } from './sigv4.ts';

describe('SigV4 presigned URLs', () => {
  it('signs the example of the S3 documentation ("GET /test.txt", query string authentication)', () => {
    const url = presignS3Url(
      'GET',
      new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      {
        region: 'us-east-1',
        accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      },
      new Date('2013-05-24T00:00:00Z'),
      86400,
    );
    assert.equal(
      url.searchParams.get('X-Amz-Signature'),
      'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
    assert.equal(
      url.searchParams.get('X-Amz-Credential'),
      'AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request',
    );
    assert.equal(url.searchParams.get('X-Amz-Expires'), '86400');
  });

  it('signs the other query parameters too, so none can be changed', () => {
    const credentials = { region: 'us-east-1', accessKeyId: 'key', secretAccessKey: 'secret' };
    const at = new Date('2026-01-01T00:00:00Z');
    const sign = (query: string) =>
      presignS3Url(
        'PUT',
        new URL(`http://127.0.0.1:9000/bucket/a/b?${query}`),
        credentials,
        at,
        60,
      ).searchParams.get('X-Amz-Signature');
    assert.notEqual(sign('partNumber=1&uploadId=x'), sign('partNumber=2&uploadId=x'));
  });
});
