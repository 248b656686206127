import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError, RequestValidationError } from '../../core/errors.ts';
import { eventsOfBody } from './ingest-body.ts';
import { maxIngestBodyBytes } from './schemas.ts';

/** What reading `body`, cut at `cuts`, answers: its events, or how it is refused. */
async function read(body: string, cuts: number[] = []) {
  const bytes = Buffer.from(body);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    chunks.push(bytes.subarray(from, cut));
    from = cut;
  }
  const events: unknown[] = [];
  try {
    for await (const event of eventsOfBody(chunks)) events.push(event);
    return { events };
  } catch (error) {
    if (error instanceof RequestValidationError) return { invalid: error.issues[0]?.loc };
    if (error instanceof AppError) return { refused: error.code };
    throw error;
  }
}

const valid = [
  '{"events": []}',
  ' { "events" : [ ] } \n',
  '{"events":[{"name":"a","metadata":{"k":"]},\\"[{"}},{"name":"b"}]}',
  '{"other": {"events": [1]}, "events": [1, "two", [3], {"4": [null]}, true], "x": "\\u00e9"}',
  '{"events": [{"name": "é😀", "customer_id": "c"}], "trailing": [1, {"a": "}"}]}',
];
const malformed = [
  '{"events": [1,]}',
  '{"events": [,1]}',
  '{"events": [1 2]}',
  '{"events": [{"name": "a"}]',
  '{"events": [{"name": "a"}]} x',
  '{"events": [{"name": "a}]}',
  '{"events" [1]}',
  '{events: [1]}',
  '{"events": [1], }',
  '{"events": [1]}}',
  '{"a": 1 "events": []}',
  '{"events": [{"a": 1,}]}',
  '[1',
];
const notEnvelope = [
  '',
  '{}',
  '{"other": []}',
  '{"events": "mixed"}',
  '{"events": {"0": 1}}',
  '{"events": [], "events": []}',
];
const notObject = ['[{"name": "x"}]', '"events"', '12'];

describe('eventsOfBody', () => {
  it('reads the events JSON.parse reads, wherever the body is cut', async () => {
    for (const body of valid) {
      const expected = { events: JSON.parse(body).events };
      const length = Buffer.byteLength(body);
      for (let cut = 0; cut <= length; cut++) {
        assert.deepEqual(await read(body, [cut]), expected, `${body} cut at ${cut}`);
      }
      assert.deepEqual(
        await read(
          body,
          Array.from({ length }, (_, at) => at),
        ),
        expected,
      );
    }
  });

  it('refuses invalid JSON anywhere, and a body that is not {events: [...]}, as the schema does', async () => {
    for (const body of malformed) {
      assert.throws(() => JSON.parse(body), body);
      for (const cut of [0, Math.floor(body.length / 2)]) {
        assert.deepEqual(await read(body, [cut]), { refused: 'INVALID_REQUEST_BODY' }, body);
      }
    }
    for (const body of notEnvelope) {
      assert.deepEqual((await read(body)).invalid, ['body', 'events'], body);
    }
    for (const body of notObject) assert.deepEqual((await read(body)).invalid, ['body'], body);
  });

  it('refuses a body over the size limit as it arrives', async () => {
    const event = `{"name":"n","external_customer_id":"${'c'.repeat(200)}"}`;
    // Chunks of 256 events, some 60 kB each, making twice the limit.
    const chunk = Array.from({ length: 256 }, () => event).join(',');
    const count = Math.ceil((2 * maxIngestBodyBytes) / chunk.length);
    let yielded = 0;
    const chunks = (function* () {
      yield '{"events":[';
      for (let index = 0; index < count; index++) {
        yielded++;
        yield `${index ? ',' : ''}${chunk}`;
      }
      yield ']}';
    })();
    await assert.rejects(
      async () => {
        for await (const _ of eventsOfBody(chunks));
      },
      (error) => error instanceof AppError && error.refusal === 'too_large',
    );
    assert.ok(yielded < count, 'stops reading at the limit');
  });
});
