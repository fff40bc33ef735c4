// What a data value's bytes are, read from their signature only: the first bytes each format's
// specification fixes, and nothing else. Bytes that match no signature are "unknown", never a
// guess. For PNG, GIF, JPEG, WebP and BMP also the pixel size, read from the header.
//
// The codec's DataKind (Sources/ArchiveCodec/Mapping/DataForms/DataKind.swift) reads the same
// table and writes what it finds as `$kind` beside the bytes in the readable view; the page reads
// that (`kindOf`) and the signatures only for values without it (the raw view, its own edits).
// Tests/Fixtures/data-kinds/cases.json holds the cases both sides check.
//
// Pure: no DOM, no globals; node imports it as the browser does.

/// Bytes read from the start of a value for its kind and pixel size. A JPEG's size is in its
/// frame header, after any APPn segments (Exif, ICC profiles, each up to 64 KiB); one further than
/// this is not looked for (the kind is still said, without a size).
export const HEADER_BYTES = 256 * 1024;

/// The kinds, by the name `dataKind` gives: what the panel says, the extension a saved file takes,
/// and whether a browser may show it as an image (a TIFF only in some: a thumbnail that does not
/// load is taken away).
export const KINDS = Object.freeze({
  png: { text: 'PNG image', extension: 'png', image: true },
  jpeg: { text: 'JPEG image', extension: 'jpg', image: true },
  gif: { text: 'GIF image', extension: 'gif', image: true },
  webp: { text: 'WebP image', extension: 'webp', image: true },
  bmp: { text: 'BMP image', extension: 'bmp', image: true },
  tiff: { text: 'TIFF image', extension: 'tiff', image: true },
  heic: { text: 'HEIC image', extension: 'heic', image: false },
  heif: { text: 'HEIF image', extension: 'heif', image: false },
  avif: { text: 'AVIF image', extension: 'avif', image: true },
  pdf: { text: 'PDF document', extension: 'pdf', image: false },
  gzip: { text: 'gzip stream', extension: 'gz', image: false },
  zip: { text: 'zip archive', extension: 'zip', image: false },
  bplist: { text: 'binary property list', extension: 'plist', image: false },
  typedstream: { text: 'typedstream', extension: 'typedstream', image: false },
  icc: { text: 'ICC colour profile', extension: 'icc', image: false },
  tzif: { text: 'time zone data (TZif)', extension: 'tzif', image: false },
  utf8: { text: 'UTF-8 text with a byte order mark', extension: 'txt', image: false },
  unknown: { text: 'unknown', extension: '', image: false },
});

/// The byte values of an ASCII string.
const ascii = (s) => [...s].map((c) => c.charCodeAt(0));

/// Whether `bytes` holds `signature` (byte values) at `at`.
function holds(bytes, signature, at = 0) {
  if (bytes.length < at + signature.length) return false;
  for (let i = 0; i < signature.length; i++) if (bytes[at + i] !== signature[i]) return false;
  return true;
}

/// Whether `bytes` begin as a typedstream does: streamer version 4, then the 11-byte signature,
/// `streamtyped` when written little-endian or `typedstream` when written big-endian (the codec's
/// rule). The one home of this signature: the file sniffing and the data panel both ask it.
export function startsAsTypedStream(bytes) {
  return holds(bytes, TYPEDSTREAM_LITTLE) || holds(bytes, TYPEDSTREAM_BIG);
}
const TYPEDSTREAM_LITTLE = [0x04, 0x0b].concat(ascii('streamtyped'));
const TYPEDSTREAM_BIG = [0x04, 0x0b].concat(ascii('typedstream'));

const be16 = (b, i) => (b[i] << 8) | b[i + 1];
const be32 = (b, i) => b[i] * 0x1000000 + ((b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]);
const le16 = (b, i) => b[i] | (b[i + 1] << 8);
const le24 = (b, i) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
const le32 = (b, i) => le24(b, i) + b[i + 3] * 0x1000000;
/// A little-endian 32-bit signed integer.
const le32Signed = (b, i) => le32(b, i) | 0;

/// HEIF's brands for HEVC-coded images and sequences (ISO/IEC 23008-12, annex B), its generic
/// brands (`mif1`, `msf1`), and AVIF's: the major brand of an ISO base media file's `ftyp` box.
const ISO_MEDIA_BRANDS = Object.freeze({
  heic: 'heic', heix: 'heic', heim: 'heic', heis: 'heic', hevc: 'heic', hevx: 'heic', hevm: 'heic', hevs: 'heic',
  mif1: 'heif', msf1: 'heif',
  avif: 'avif', avis: 'avif',
});

/// The kind an ISO base media file's major brand names, when its first box is `ftyp`.
function isoMediaKind(b) {
  if (!holds(b, ascii('ftyp'), 4) || b.length < 12) return null;
  const brand = String.fromCharCode(b[8], b[9], b[10], b[11]);
  return Object.hasOwn(ISO_MEDIA_BRANDS, brand) ? ISO_MEDIA_BRANDS[brand] : null;
}

/// The signatures, in the order they are tried: `[kind, test(bytes, length)]`.
const SIGNATURES = [
  ['png', (b) => holds(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ['jpeg', (b) => holds(b, [0xff, 0xd8, 0xff])],
  ['gif', (b) => holds(b, ascii('GIF87a')) || holds(b, ascii('GIF89a'))],
  ['webp', (b) => holds(b, ascii('RIFF')) && holds(b, ascii('WEBP'), 8)],
  // "BM" is two letters only: the header's file size must be the value's length too.
  ['bmp', (b, length) => holds(b, ascii('BM')) && b.length >= 6 && le32(b, 2) === length],
  ['tiff', (b) => holds(b, [0x49, 0x49, 0x2a, 0x00]) || holds(b, [0x4d, 0x4d, 0x00, 0x2a])],
  ['pdf', (b) => holds(b, ascii('%PDF-'))],
  ['gzip', (b) => holds(b, [0x1f, 0x8b, 0x08])],
  ['zip', (b) => holds(b, [0x50, 0x4b, 0x03, 0x04])],
  ['bplist', (b) => holds(b, ascii('bplist00'))],
  ['typedstream', (b) => startsAsTypedStream(b)],
  ['tzif', (b) => holds(b, ascii('TZif'))],
  ['utf8', (b) => holds(b, [0xef, 0xbb, 0xbf])],
  ['heic', (b) => isoMediaKind(b) === 'heic'],
  ['heif', (b) => isoMediaKind(b) === 'heif'],
  ['avif', (b) => isoMediaKind(b) === 'avif'],
  // A profile's signature is in its header, at offset 36.
  ['icc', (b) => holds(b, ascii('acsp'), 36)],
];

/// A PNG's size: its first chunk is IHDR, width and height big-endian.
function pngSize(b) {
  if (!holds(b, ascii('IHDR'), 12) || b.length < 24) return null;
  return { width: be32(b, 16), height: be32(b, 20) };
}

/// A GIF's logical screen size, little-endian after the signature.
const gifSize = (b) => (b.length >= 10 ? { width: le16(b, 6), height: le16(b, 8) } : null);

/// Start-of-frame markers: C0–CF but C4 (Huffman tables), C8 (reserved) and CC (arithmetic
/// coding conditioning).
const isStartOfFrame = (m) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

/// A JPEG's size: its segments walked from the start up to the frame header (height, then
/// width); null when the bytes end first, a segment is malformed or the scan starts first.
function jpegSize(b) {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++; // fill byte
    } else if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2; // markers without a length
    } else if (marker === 0xda || marker === 0xd9) {
      return null; // the scan (or the end) before any frame header
    } else if (isStartOfFrame(marker)) {
      return at + 9 <= b.length ? { width: be16(b, at + 7), height: be16(b, at + 5) } : null;
    } else {
      const length = be16(b, at + 2);
      if (length < 2) return null;
      at += 2 + length;
    }
  }
  return null;
}

/// A WebP's size from its first chunk (RFC 9649): `VP8 ` (the key frame's 14-bit sizes after its
/// start code), `VP8L` (14-bit sizes less one, after its signature byte) or `VP8X` (the canvas's
/// 24-bit sizes less one).
function webpSize(b) {
  if (holds(b, ascii('VP8 '), 12)) {
    if (b.length < 30 || !holds(b, [0x9d, 0x01, 0x2a], 23)) return null;
    return { width: le16(b, 26) & 0x3fff, height: le16(b, 28) & 0x3fff };
  }
  if (holds(b, ascii('VP8L'), 12)) {
    if (b.length < 25 || b[20] !== 0x2f) return null;
    const bits = le32(b, 21);
    return { width: (bits % 0x4000) + 1, height: (Math.floor(bits / 0x4000) % 0x4000) + 1 };
  }
  if (holds(b, ascii('VP8X'), 12)) {
    if (b.length < 30) return null;
    return { width: le24(b, 24) + 1, height: le24(b, 27) + 1 };
  }
  return null;
}

/// A BMP's size from its information header: 16-bit sizes in the core header (12 bytes), 32-bit
/// signed ones in every later one (a negative height: rows stored top-down).
function bmpSize(b) {
  if (b.length < 18) return null;
  const headerSize = le32(b, 14);
  if (headerSize === 12) return b.length >= 22 ? { width: le16(b, 18), height: le16(b, 20) } : null;
  if (headerSize < 40 || b.length < 26) return null;
  const width = le32Signed(b, 18);
  const height = le32Signed(b, 22);
  if (width <= 0 || height === 0 || height === -0x80000000) return null;
  return { width, height: Math.abs(height) };
}

const SIZES = { png: pngSize, gif: gifSize, jpeg: jpegSize, webp: webpSize, bmp: bmpSize };

/// The kind of a value whose first bytes are `head` (a Uint8Array, up to `HEADER_BYTES`) and
/// whose length is `length`: `{kind, text, extension, image}` from `KINDS`, with `width` and
/// `height` when the header says them.
export function dataKind(head, length = head.length) {
  const found = SIGNATURES.find(([, test]) => test(head, length));
  const kind = found ? found[0] : 'unknown';
  const result = { kind, ...KINDS[kind] };
  const size = SIZES[kind] ? SIZES[kind](head) : null;
  if (size) Object.assign(result, size);
  return result;
}

/// The kind the codec wrote beside a value's bytes (its `$kind` member: `{name, width?, height?}`,
/// a colour profile's `description`, `class`, `space` and `version`),
/// in `dataKind`'s form; null when `written` is not one this page knows (then the signatures
/// decide). A size is taken only as two whole numbers.
export function writtenKind(written) {
  if (written === null || typeof written !== 'object' || typeof written.name !== 'string') return null;
  if (written.name === 'unknown' || !Object.hasOwn(KINDS, written.name)) return null;
  const result = { kind: written.name, ...KINDS[written.name] };
  if (Number.isSafeInteger(written.width) && Number.isSafeInteger(written.height)) {
    Object.assign(result, { width: written.width, height: written.height });
  }
  // What a colour profile says of itself (the codec reads it from the header and the
  // description tag; the page has no reader of its own): each member taken only as text.
  if (written.name === 'icc') {
    for (const member of ['description', 'class', 'space', 'version']) {
      if (typeof written[member] === 'string') result[member] = written[member];
    }
  }
  return result;
}

/// What the panel says of a kind: its text, with the pixel size when known (`PNG image, 24 × 16
/// pixels`).
export const kindText = (k) => (k.width !== undefined ? `${k.text}, ${k.width} × ${k.height} pixels` : k.text);

/// What the panel says of a colour profile after its kind (`“sRGB IEC61966-2.1”, display, RGB,
/// version 2.1.0`): the members the service wrote, in that order; empty for anything else.
export function profileText(k) {
  const parts = [];
  if (k.description !== undefined) parts.push(`“${k.description}”`);
  for (const member of ['class', 'space']) if (k[member] !== undefined) parts.push(k[member]);
  if (k.version !== undefined) parts.push(`version ${k.version}`);
  return parts.join(', ');
}
