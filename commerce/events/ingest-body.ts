import { AppError, RequestValidationError } from '../../core/errors.ts';
import { eventsIngestInput, maxIngestBodyBytes } from './schemas.ts';

/** Where the reader is in `{"events": [...], ...}`. */
type Place =
  | 'start'
  | 'key_or_end'
  | 'key_start'
  | 'key'
  | 'colon'
  | 'value_start'
  | 'value'
  | 'array_start'
  | 'element'
  | 'after_value'
  | 'end';

const malformed = () =>
  new AppError('invalid', 'INVALID_REQUEST_BODY', 'The request body is not valid JSON');

const tooLarge = () =>
  new AppError(
    'too_large',
    'PAYLOAD_TOO_LARGE',
    `An ingest request body holds at most ${maxIngestBodyBytes / 1024 / 1024} MB`,
  );

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** The envelope's own error for what `events` held (missing, or not a list). */
function envelopeError(body: unknown): RequestValidationError {
  const parsed = eventsIngestInput.safeParse(body);
  return RequestValidationError.fromZod('body', parsed.error?.issues ?? []);
}

/**
 * The events of an ingest request's JSON body, parsed one at a time as its bytes arrive: the
 * body as a whole is never held, only the event being read. The envelope is checked as it goes
 * (invalid JSON anywhere answers 400, a body over `maxIngestBodyBytes` 413, a body that is not
 * `{events: [...]}` 422 as the schema words it); each event's own text is parsed with
 * `JSON.parse`, which checks it.
 */
export async function* eventsOfBody(
  chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let bytes = 0;
  let place: Place = 'start';
  /** Text not yet consumed: from the start of the piece being read (a key or a value). */
  let text = '';
  let pieceStart = 0;
  let key = '';
  let sawEvents = false;
  /** In a key: after a backslash. In a value: inside a string, and how deep in brackets. */
  let escaped = false;
  let inString = false;
  let depth = 0;
  /** Where the last complete element not yet parsed ends (its `,` or `]`), -1 for none. */
  let lastEnd = -1;
  /** The text of a body that does not start with `{`, parsed whole at the end. */
  let other = null as string | null;

  /**
   * Where the value being read ends (the `,` or `closer` after it, outside strings and brackets),
   * or -1 when the text ends first (the state is kept for the next chunk). Strings are skipped
   * whole (`indexOf`); what the value holds is checked by `JSON.parse` later.
   */
  const valueEnd = (from: number, closer: number): number => {
    for (let at = from; at < text.length; at++) {
      if (inString) {
        // The next quote not escaped: one with an even run of backslashes before it.
        const quote = text.indexOf('"', at);
        if (quote < 0) return -1;
        let backslashes = 0;
        while (quote - backslashes > 0 && text.charCodeAt(quote - backslashes - 1) === 0x5c) {
          backslashes++;
        }
        at = quote;
        if (backslashes % 2 === 0) inString = false;
        continue;
      }
      const code = text.charCodeAt(at);
      if (code === 0x22) inString = true;
      else if (code === 0x7b || code === 0x5b) depth++;
      else if (depth > 0 && (code === 0x7d || code === 0x5d)) depth--;
      else if (depth === 0 && (code === 0x2c || code === closer)) return at;
    }
    return -1;
  };

  /**
   * The complete elements read so far (from `pieceStart` to `lastEnd`), parsed at once: one
   * `JSON.parse` per chunk rather than per event.
   */
  const parsedElements = function* (): Generator<unknown> {
    if (lastEnd < 0) return;
    const elements = text.slice(pieceStart, lastEnd);
    // `[1,]` or `[,]`: a list of values never has an empty one.
    if (elements.trim() === '') throw malformed();
    yield* parsePiece(`[${elements}]`) as unknown[];
    pieceStart = lastEnd + 1;
    lastEnd = -1;
  };

  const scan = function* (from: number): Generator<unknown> {
    scanning: for (let at = from; at < text.length; at++) {
      const code = text.charCodeAt(at);
      switch (place) {
        case 'start':
          if (isSpace(code)) continue;
          if (code !== 0x7b) {
            other = text.slice(at);
            text = '';
            return;
          }
          place = 'key_or_end';
          continue;
        case 'key_or_end':
        case 'key_start':
          if (isSpace(code)) continue;
          if (code === 0x7d && place === 'key_or_end') {
            place = 'end';
          } else if (code === 0x22) {
            place = 'key';
            pieceStart = at;
            escaped = false;
          } else {
            throw malformed();
          }
          continue;
        case 'key':
          if (escaped) escaped = false;
          else if (code === 0x5c) escaped = true;
          else if (code === 0x22) {
            key = parsePiece(text.slice(pieceStart, at + 1)) as string;
            place = 'colon';
          }
          continue;
        case 'colon':
          if (isSpace(code)) continue;
          if (code !== 0x3a) throw malformed();
          place = 'value_start';
          continue;
        case 'value_start':
          if (isSpace(code)) continue;
          if (key === 'events') {
            if (sawEvents) {
              throw new RequestValidationError([
                { loc: ['body', 'events'], msg: 'events is given twice.', type: 'value_error' },
              ]);
            }
            sawEvents = true;
          }
          if (key === 'events' && code === 0x5b) {
            place = 'array_start';
            continue;
          }
          place = 'value';
          pieceStart = at;
          inString = false;
          depth = 0;
          at--;
          continue;
        case 'array_start':
          if (isSpace(code)) continue;
          if (code === 0x5d) {
            place = 'after_value';
            continue;
          }
          place = 'element';
          pieceStart = at;
          inString = false;
          depth = 0;
          at--;
          continue;
        case 'value': {
          const end = valueEnd(at, 0x7d);
          if (end < 0) break scanning;
          // Another key's value is checked and dropped; `events` that is not a list is refused.
          const value = parsePiece(text.slice(pieceStart, end));
          if (key === 'events') throw envelopeError({ events: value });
          place = text.charCodeAt(end) === 0x2c ? 'key_start' : 'end';
          at = end;
          continue;
        }
        case 'element': {
          const end = valueEnd(at, 0x5d);
          if (end < 0) break scanning;
          lastEnd = end;
          at = end;
          if (text.charCodeAt(end) === 0x5d) {
            yield* parsedElements();
            place = 'after_value';
          }
          continue;
        }
        case 'after_value':
          if (isSpace(code)) continue;
          if (code === 0x2c) place = 'key_start';
          else if (code === 0x7d) place = 'end';
          else throw malformed();
          continue;
        case 'end':
          if (!isSpace(code)) throw malformed();
          continue;
      }
    }
    if (place === 'element') yield* parsedElements();
    // Keep only the piece being read, if any.
    const reading = place === 'key' || place === 'value' || place === 'element';
    text = reading ? text.slice(pieceStart) : '';
    pieceStart = 0;
  };

  for await (const chunk of chunks) {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (bytes > maxIngestBodyBytes) throw tooLarge();
    const decoded = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (other !== null) {
      other += decoded;
      continue;
    }
    const from = text.length;
    text += decoded;
    yield* scan(from);
  }
  const rest = decoder.decode();
  if (other !== null) throw envelopeError(parsePiece(other + rest));
  if (rest) {
    const from = text.length;
    text += rest;
    yield* scan(from);
  }
  if (place === 'start') throw envelopeError({});
  if (place !== 'end') throw malformed();
  if (!sawEvents) throw envelopeError({});
}

function parsePiece(piece: string): unknown {
  try {
    return JSON.parse(piece);
  } catch {
    throw malformed();
  }
}
