// A hex dump of bytes: lines of 16 bytes (offset, hex, ASCII), a page of 4 KiB at a time, so a
// value of any size renders one page and no more.
//
// Pure: no DOM, no globals; node imports it as the browser does.

import { countText } from './format.mjs';

/// Bytes on a line of the dump.
export const BYTES_PER_LINE = 16;
/// Bytes on a page of the dump: 256 lines.
export const PAGE_BYTES = 4096;

/// Pages of a value of `length` bytes: at least one (an empty value's page is empty).
export const pageCountOf = (length) => Math.max(1, Math.ceil(length / PAGE_BYTES));

/// Page `page` of a value of `length` bytes, clamped to the pages there are: `{page, pages, from,
/// to}`, bytes `from` up to `to` (not included).
export function pageRange(length, page) {
  const pages = pageCountOf(length);
  const p = Math.min(Math.max(0, Math.trunc(page) || 0), pages - 1);
  return { page: p, pages, from: p * PAGE_BYTES, to: Math.min(length, (p + 1) * PAGE_BYTES) };
}

/// An offset as the dump writes it: upper-case hex, eight digits at least.
export const offsetText = (n) => n.toString(16).toUpperCase().padStart(8, '0');

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).toUpperCase().padStart(2, '0'));

/// A byte as the ASCII column shows it: printable ASCII as itself, anything else as `.`.
const asciiOf = (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.');

/// The dump's lines of `bytes` (a Uint8Array), the first at offset `offset`: `[{offset, hex,
/// ascii}]`, hex as bytes apart by one space (`89 50 4E 47`), a short last line as long as it is.
export function dumpLines(bytes, offset = 0) {
  const lines = [];
  for (let at = 0; at < bytes.length; at += BYTES_PER_LINE) {
    const line = bytes.subarray(at, Math.min(bytes.length, at + BYTES_PER_LINE));
    lines.push({ offset: offsetText(offset + at), hex: Array.from(line, (b) => HEX[b]).join(' '), ascii: Array.from(line, asciiOf).join('') });
  }
  return lines;
}

/// What the pager says of a page: `bytes 4,096–8,191 of 3,145,851 · page 2 of 769`.
export function pageText({ page, pages, from, to }, length) {
  if (length === 0) return 'no bytes';
  return `bytes ${countText(from)}–${countText(to - 1)} of ${countText(length)} · page ${countText(page + 1)} of ${countText(pages)}`;
}
