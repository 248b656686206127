/**
 * Rules about uploaded files: how Polar writes a size for people, and which multipart plans
 * describe a file. Plain functions over plain values.
 */

/** What an uploaded file is for: each has its own size cap, visibility and content types. */
export const fileServices = ['downloadable', 'product_media', 'organization_avatar'] as const;
export type FileService = (typeof fileServices)[number];

const units = ['', 'K', 'M', 'G', 'T', 'P', 'E', 'Z'];

/**
 * A byte count as Polar shows it (`size_readable`): one decimal in steps of 1024, "500.0 B",
 * "1.2 KB", "3.0 MB". Ties round to even as Python's formatting does (1280 bytes is "1.2 KB").
 */
export function humanReadableSize(bytes: number): string {
  let value = bytes;
  for (const unit of units) {
    if (Math.abs(value) < 1024) return `${oneDecimal(value)} ${unit}B`;
    value /= 1024;
  }
  return `${oneDecimal(value)} YB`;
}

/** `value` with one decimal, a tie going to the even tenth. */
function oneDecimal(value: number): string {
  const tenths = value * 10;
  let rounded = Math.round(tenths);
  // Math.round sends ties up; a power-of-two division makes ties exact, so this test is too.
  if (rounded - tenths === 0.5 && rounded % 2 !== 0) rounded -= 1;
  return (rounded / 10).toFixed(1);
}

/** A part of a multipart upload plan: bytes [chunk_start, chunk_end) of the file. */
export interface PlanPart {
  number: number;
  chunk_start: number;
  chunk_end: number;
}

/** What is wrong with a plan: the part (its index) and field at fault, or the parts as a whole. */
export interface PlanProblem {
  at: [] | [number, keyof PlanPart];
  message: string;
}

/**
 * A plan must cover the file's `size` bytes exactly once, in order: numbers ascending, the
 * first part starting at 0, each next one where the previous ended, the last ending at `size`.
 * Answers the first problem, or null for a sound plan.
 */
export function uploadPlanProblem(size: number, parts: readonly PlanPart[]): PlanProblem | null {
  let expectedStart = 0;
  for (const [index, part] of parts.entries()) {
    const previous = parts[index - 1];
    if (previous && part.number <= previous.number) {
      return { at: [index, 'number'], message: 'Part numbers must be in ascending order.' };
    }
    if (part.chunk_start !== expectedStart) {
      return {
        at: [index, 'chunk_start'],
        message: `The part must start at byte ${expectedStart}, where the previous one ends.`,
      };
    }
    if (part.chunk_end <= part.chunk_start) {
      return { at: [index, 'chunk_end'], message: 'The part must end after it starts.' };
    }
    if (part.chunk_end > size) {
      return { at: [index, 'chunk_end'], message: `The file has only ${size} bytes.` };
    }
    expectedStart = part.chunk_end;
  }
  if (expectedStart !== size) {
    return { at: [], message: `The parts cover ${expectedStart} bytes of the ${size} declared.` };
  }
  return null;
}
