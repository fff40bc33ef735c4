import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync, gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { HEADER_BYTES, KINDS, dataKind, kindText, profileText, writtenKind } from '../../Sources/ArchiveServer/Resources/page/data-kind.mjs';
import { REPOSITORY } from './page-files.mjs';

const bytes = (...parts) => new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p)))));
const kindOf = (b) => dataKind(b, b.length);

/// A PNG of `width` by `height` grey pixels, made with zlib as the format lays it out.
function png(width, height) {
  const chunk = (type, body) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(body.length);
    return Buffer.concat([length, Buffer.from(type), body, Buffer.alloc(4)]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  const rows = Buffer.alloc((width + 1) * height);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes(signature, chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0)));
}

/// A JPEG's first segments: SOI, an APP0 (JFIF), an APP1 of `app1` bytes, then a baseline frame
/// header of `width` by `height`.
function jpeg(width, height, app1 = 100, frame = 0xc0) {
  const segment = (marker, body) => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([head, body]);
  };
  const sof = Buffer.from([8, 0, 0, 0, 0, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  return bytes([0xff, 0xd8], segment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')), segment(0xe1, Buffer.alloc(app1)),
    segment(frame, sof), [0xff, 0xda, 0, 2]);
}

test('every signature the formats define, and nothing else', () => {
  const cases = [
    ['png', png(3, 2)],
    ['jpeg', jpeg(640, 480)],
    ['gif', bytes('GIF87a', [10, 0, 20, 0, 0])],
    ['gif', bytes('GIF89a', [1, 1, 2, 2, 0])],
    ['webp', bytes('RIFF', [4, 0, 0, 0], 'WEBPVP8 ')],
    ['tiff', bytes([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0])],
    ['tiff', bytes([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8])],
    ['pdf', bytes('%PDF-1.7\n')],
    ['gzip', new Uint8Array(gzipSync(Buffer.from('hello')))],
    ['zip', bytes('PK', [3, 4, 20, 0])],
    ['bplist', bytes('bplist00', [0xd0, 8])],
    ['typedstream', bytes([0x04, 0x0b], 'streamtyped', [0x81, 0xe8, 0x03])],
    // A stream written big-endian (a PowerPC-era archive) signs itself with the word turned.
    ['typedstream', bytes([0x04, 0x0b], 'typedstream', [0x81, 0x03, 0xe8])],
    ['tzif', bytes('TZif2', Buffer.alloc(15))],
    ['utf8', bytes([0xef, 0xbb, 0xbf], 'text')],
    ['icc', bytes(Buffer.alloc(36), 'acsp', Buffer.alloc(88))],
  ];
  for (const [kind, b] of cases) assert.equal(kindOf(b).kind, kind, kind);
  for (const kind of new Set(cases.map(([k]) => k))) assert.ok(KINDS[kind], kind);
  assert.deepEqual(Object.keys(KINDS).filter((k) => k !== 'unknown' && !cases.some(([c]) => c === k)), ['bmp', 'heic', 'heif', 'avif']);
});

test('bytes that match no signature are unknown: no guess', () => {
  for (const b of [
    bytes(''), bytes('hello, world'), bytes('{"json": true}'), bytes('<?xml version="1.0"?><plist/>'),
    bytes([0x89, 0x50, 0x4e, 0x47]), // a PNG signature cut short
    bytes([0xff, 0xd8]), bytes('GIF88a'), bytes('RIFF', [0, 0, 0, 0], 'WAVE'), bytes('bplist01'),
    bytes([0x04, 0x0b], 'streamtypes'), bytes(Buffer.alloc(35), 'acsp'), bytes('PK', [5, 6]),
  ]) {
    const k = kindOf(b);
    assert.equal(k.kind, 'unknown', Buffer.from(b).toString('latin1'));
    assert.equal(k.extension, '');
    assert.equal(k.width, undefined);
    assert.equal(kindText(k), 'unknown');
  }
});

test('BMP only when its header\'s file size is the value\'s length', () => {
  const bmp = bytes('BM', [30, 0, 0, 0], Buffer.alloc(24));
  assert.equal(dataKind(bmp, 30).kind, 'bmp');
  assert.equal(dataKind(bmp, 31).kind, 'unknown');
  assert.equal(kindOf(bytes('BMW is not a bitmap')).kind, 'unknown');
});

test('pixel sizes from PNG, GIF and JPEG headers', () => {
  assert.equal(kindText(kindOf(png(24, 16))), 'PNG image, 24 × 16 pixels');
  assert.deepEqual([kindOf(png(70000, 1)).width, kindOf(png(70000, 1)).height], [70000, 1]);
  const gif = kindOf(bytes('GIF89a', [0x2c, 0x01, 0xc8, 0x00, 0]));
  assert.deepEqual([gif.width, gif.height], [300, 200]);
  const jpg = kindOf(jpeg(4032, 3024));
  assert.deepEqual([jpg.width, jpg.height], [4032, 3024]);
  // A progressive frame (C2) after a 60 KiB Exif segment.
  const progressive = kindOf(jpeg(1280, 720, 60000, 0xc2));
  assert.deepEqual([progressive.width, progressive.height], [1280, 720]);
  // C4 (Huffman tables) is no frame header.
  assert.equal(kindOf(jpeg(1, 1, 10, 0xc4)).width, undefined);
});

test('a pixel size the header does not hold whole is not said', () => {
  assert.equal(kindOf(png(3, 2).subarray(0, 20)).width, undefined);
  assert.equal(kindOf(png(3, 2).subarray(0, 20)).kind, 'png');
  const jpg = jpeg(640, 480, 1000);
  // Cut inside the frame header (7 of its 19 bytes left): still a JPEG, no size.
  const cut = jpg.subarray(0, jpg.length - 4 - 12);
  assert.equal(kindOf(cut).kind, 'jpeg');
  assert.equal(kindOf(cut).width, undefined);
  // A frame header past the bytes read (HEADER_BYTES) is not looked for.
  const far = jpeg(640, 480, 65000);
  assert.ok(far.length < HEADER_BYTES);
  assert.equal(dataKind(far.subarray(0, 30000), far.length).width, undefined);
  // A malformed segment ends the walk.
  assert.equal(kindOf(bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0, 0, 0])).width, undefined);
  assert.equal(kindOf(bytes('GIF89a', [1])).width, undefined);
});

test('real files of the repository: the binary plists and typedstreams among the fixtures', () => {
  const fixtures = path.join(REPOSITORY, 'Tests/Fixtures');
  const typed = readFileSync(path.join(fixtures, 'public/typedstream/imessage-exporter_attributedBody-AttributedBodyTextOnly2.bin'));
  assert.equal(kindOf(new Uint8Array(typed)).kind, 'typedstream');
  const archive = readFileSync(path.join(fixtures, 'apple/scl-macOS1014_NSAttributedString.archive'));
  assert.equal(kindOf(new Uint8Array(archive)).kind, 'bplist');
});

// The table the codec's DataKind reads too (Tests/ArchiveCodecTests/Mapping/DataForms/
// DataKindTests.swift): both sides name each case's kind and pixel size alike.
const { cases: SHARED } = JSON.parse(readFileSync(path.join(REPOSITORY, 'Tests/Fixtures/data-kinds/cases.json'), 'utf8'));

test('every case of the table shared with the codec', () => {
  assert.ok(SHARED.length >= 40);
  for (const { name, hex, kind, width, height } of SHARED) {
    const k = kindOf(new Uint8Array(Buffer.from(hex, 'hex')));
    assert.equal(k.kind, kind, name);
    assert.equal(k.width, width, name);
    assert.equal(k.height, height, name);
  }
});

test('the shared table covers every kind', () => {
  assert.deepEqual(new Set(SHARED.map((c) => c.kind)), new Set(Object.keys(KINDS)));
});

test('the kind the service wrote (`$kind`) reads as the signatures would say it', () => {
  for (const { name, hex, kind } of SHARED) {
    if (kind === 'unknown') continue;
    const said = kindOf(new Uint8Array(Buffer.from(hex, 'hex')));
    const written = { name: kind };
    if (said.width !== undefined) Object.assign(written, { width: said.width, height: said.height });
    assert.deepEqual(writtenKind(written), said, name);
  }
  for (const odd of [null, 'png', 3, [], {}, { name: 'unknown' }, { name: 'future' }, { name: 'toString' }]) {
    assert.equal(writtenKind(odd), null, JSON.stringify(odd));
  }
  // A size that is not two whole numbers is left out.
  assert.equal(writtenKind({ name: 'png', width: '1', height: 2 }).width, undefined);
  assert.equal(writtenKind({ name: 'png', width: 1 }).width, undefined);
});

test("a colour profile's own account (`$kind`'s description, class, space, version) reads in the panel's words", () => {
  const written = { name: 'icc', version: '2.1.0', class: 'display', space: 'RGB', description: 'sRGB IEC61966-2.1' };
  const k = writtenKind(written);
  assert.equal(kindText(k), 'ICC colour profile');
  assert.equal(profileText(k), '“sRGB IEC61966-2.1”, display, RGB, version 2.1.0');
  // Members that are not text are not taken; other kinds say no profile.
  assert.equal(profileText(writtenKind({ name: 'icc', description: 7, space: 'GRAY' })), 'GRAY');
  assert.equal(profileText(writtenKind({ name: 'png', description: 'not a profile' })), '');
});
