import assert from 'node:assert/strict';
import { test } from 'node:test';
import { humanReadableSize, type PlanProblem, uploadPlanProblem } from './files.ts';

test('humanReadableSize writes sizes as Polar does', () => {
  const cases: [number, string][] = [
    [0, '0.0 B'],
    [1, '1.0 B'],
    [1023, '1023.0 B'],
    [1024, '1.0 KB'],
    [1229, '1.2 KB'],
    [1280, '1.2 KB'], // 1.25: the tie goes to the even tenth
    [1331, '1.3 KB'],
    [1_258_291, '1.2 MB'],
    [10 * 1024 * 1024, '10.0 MB'],
    [1024 ** 3 * 5.5, '5.5 GB'],
    [1024 ** 8 * 2, '2.0 YB'],
  ];
  for (const [bytes, expected] of cases) {
    assert.equal(humanReadableSize(bytes), expected, `${bytes} bytes`);
  }
});

test('uploadPlanProblem accepts plans covering the file once, in order', () => {
  const part = (number: number, chunk_start: number, chunk_end: number) => ({
    number,
    chunk_start,
    chunk_end,
  });
  const cases: [string, number, ReturnType<typeof part>[], PlanProblem | null][] = [
    ['one part', 10, [part(1, 0, 10)], null],
    ['two parts', 10, [part(1, 0, 6), part(2, 6, 10)], null],
    ['numbers with gaps', 10, [part(1, 0, 6), part(5, 6, 10)], null],
    [
      'numbers out of order',
      10,
      [part(2, 0, 6), part(1, 6, 10)],
      { at: [1, 'number'], message: 'Part numbers must be in ascending order.' },
    ],
    [
      'a first part not at 0',
      10,
      [part(1, 1, 10)],
      {
        at: [0, 'chunk_start'],
        message: 'The part must start at byte 0, where the previous one ends.',
      },
    ],
    [
      'a gap between parts',
      10,
      [part(1, 0, 5), part(2, 6, 10)],
      {
        at: [1, 'chunk_start'],
        message: 'The part must start at byte 5, where the previous one ends.',
      },
    ],
    [
      'an overlap',
      10,
      [part(1, 0, 6), part(2, 5, 10)],
      {
        at: [1, 'chunk_start'],
        message: 'The part must start at byte 6, where the previous one ends.',
      },
    ],
    [
      'an empty part',
      10,
      [part(1, 0, 0)],
      { at: [0, 'chunk_end'], message: 'The part must end after it starts.' },
    ],
    [
      'a part past the end',
      10,
      [part(1, 0, 11)],
      { at: [0, 'chunk_end'], message: 'The file has only 10 bytes.' },
    ],
    [
      'parts short of the size',
      10,
      [part(1, 0, 9)],
      { at: [], message: 'The parts cover 9 bytes of the 10 declared.' },
    ],
  ];
  for (const [name, size, parts, expected] of cases) {
    assert.deepEqual(uploadPlanProblem(size, parts), expected, name);
  }
});
