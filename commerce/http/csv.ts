import { Readable } from 'node:stream';
import type { Context } from 'koa';

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, or a tab or carriage return
 * before one) gets a leading `'`, which makes it text (OWASP's advice on CSV injection).
 */
const formulaStart = /^[=+\-@\t\r]/;

/** One cell as RFC 4180 writes it: quoted, with quotes doubled, when it holds `"`, `,` or a line break. */
export function csvCell(value: string): string {
  const text = formulaStart.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One line of cells, ended by CRLF as Polar's (and Excel's) CSV dialect does. */
export const csvLine = (cells: readonly string[]): string => `${cells.map(csvCell).join(',')}\r\n`;

type Rows = AsyncIterable<readonly string[]> | Iterable<readonly string[]>;

/** The header, then each row, written in pieces of about 64 kB as the rows stream in. */
async function* csvPieces(header: readonly string[], rows: Rows) {
  let piece = csvLine(header);
  for await (const row of rows) {
    piece += csvLine(row);
    if (piece.length >= 65_536) {
      yield piece;
      piece = '';
    }
  }
  yield piece;
}

/** Answers a CSV file to download as `filename`, its rows streamed. */
export function answerCsv(
  ctx: Context,
  filename: string,
  header: readonly string[],
  rows: Rows,
): void {
  ctx.type = 'text/csv; charset=utf-8';
  ctx.attachment(filename);
  ctx.body = Readable.from(csvPieces(header, rows));
}
