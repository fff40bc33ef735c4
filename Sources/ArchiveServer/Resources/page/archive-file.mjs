// What the page knows about the file it opened: its format by its first bytes, the decode
// request for each view of it, the second request for an archive nested too deep, and the names
// of its downloads.
//
// Pure: no DOM, no globals; node imports it as the browser does.

import { KEY } from './mapping.mjs';
import { countText } from './format.mjs';
import { startsAsTypedStream } from './data-kind.mjs';

/// The file's format by its first 64 bytes, by the codec's rule (InputKind) in the page's classes:
/// 'typedstream' (data-kind's `startsAsTypedStream`: version 4, `streamtyped` or `typedstream`), 'xml'
/// (`<` first), 'json' (`{`, `[` or `"` first: the service's own JSON, whose root may be a string,
/// which InputKind leaves unknown), or 'binary' for the rest (a binary plist, gzip, zlib, anything
/// else: the server says what it is). Whitespace is JSON's four; UTF-8 byte order marks before
/// any of these are passed over. Tests/Fixtures/sniffing/cases.json holds the cases both sides
/// are checked against.
export function sniffFormat(bytes) {
  let head = new Uint8Array(bytes, 0, Math.min(bytes.byteLength, 64));
  while (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) head = head.subarray(3);
  if (startsAsTypedStream(head)) return 'typedstream';
  const first = head.find((byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09);
  switch (first === undefined ? '' : String.fromCharCode(first)) {
    case '<': return 'xml';
    case '{': case '[': case '"': return 'json';
    default: return 'binary';
  }
}

/// The decode request for `view` ('readable', 'raw', 'plain' or 'summary'): the readable view
/// with every number exact and, after a too-deep reply, `maxDepth` (the plain view takes
/// neither: its numbers are numbers); payloads decoded in place when `nested` (not in the raw
/// view, which shows the property list itself).
export function decodeURL(view, { maxDepth = 0, nested = false } = {}) {
  const params = new URLSearchParams({ view });
  if (view === 'readable') params.set('exactNumbers', '1');
  if (view === 'readable' && maxDepth) params.set('maxDepth', String(maxDepth));
  if (nested && view !== 'raw') params.set('nested', '1');
  return '/v1/decode?' + params.toString();
}

/// The `maxDepth` to ask again with after `problem`, when it says the archive nests deeper than
/// the server writes in one piece (413 too-deep with its limit); else null.
export function retryDepth(problem) {
  if (!(problem.status === 413 && typeof problem.limit === 'number' && String(problem.type).endsWith(':too-deep'))) return null;
  return Math.min(64, problem.limit);
}

/// What the page says when it shows an archive decoded with `maxDepth`.
export const tooDeepNotice = (depth, maxDepth) =>
  `This archive nests ${countText(Number(depth))} levels deep, more than this server writes in one piece, ` +
  `so its deepest objects are in "${KEY.table}" at the end (maxDepth=${maxDepth}); follow the links to reach them.`;

/// The encode format for the choice `choice` ('same', 'binary', 'xml') of a file in `format`.
export const encodeFormat = (choice, format) => (choice === 'same' ? (format === 'xml' ? 'xml' : 'binary') : choice);

/// The file's name without its extension (a name that is only an extension kept whole);
/// 'archive' when no file is open.
export function baseName(name) {
  const n = name === undefined || name === null ? 'archive' : name;
  return n.replace(/\.[^.]*$/, '') || n;
}

/// The name a view's JSON is saved under.
export const jsonFileName = (name, viewName) => `${baseName(name)}${viewName === 'raw' || viewName === 'plain' ? '.' + viewName : ''}.json`;

/// The name an encoded archive is saved under: the original's extension (a JSON file's archive:
/// `.typedstream` or `.plist` by what it encodes to), `.edited` before it when edited.
export function archiveFileName(source, edited, isTypedStream) {
  const original = source.name.match(/\.([^.]+)$/);
  const suffix = source.format !== 'json' && original ? original[1] : isTypedStream ? 'typedstream' : 'plist';
  return `${baseName(source.name)}${edited ? '.edited' : ''}.${suffix}`;
}
