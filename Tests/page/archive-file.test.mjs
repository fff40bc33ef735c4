import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  archiveFileName, baseName, decodeURL, encodeFormat, jsonFileName, retryDepth, sniffFormat, tooDeepNotice,
} from '../../Sources/ArchiveServer/Resources/page/archive-file.mjs';

const bytes = (...parts) => {
  const buffer = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
  return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length);
};

test('formats by their first bytes', () => {
  assert.equal(sniffFormat(bytes('bplist00', [0xd1, 0x01])), 'binary');
  assert.equal(sniffFormat(bytes([0x04, 0x0b], 'streamtyped', [0x81, 0xe8, 0x03])), 'typedstream');
  assert.equal(sniffFormat(bytes([0x04, 0x0b], 'typedstream', [0x81, 0x03, 0xe8])), 'typedstream', 'big-endian');
  assert.equal(sniffFormat(bytes(' ', [0x04, 0x0b], 'streamtyped', [0x81, 0xe8, 0x03])), 'binary', 'the header comes first');
  assert.equal(sniffFormat(bytes('{"note": "streamtyped"}')), 'json');
  assert.equal(sniffFormat(bytes('\f{}')), 'binary', 'JSON\'s whitespace only');
  assert.equal(sniffFormat(bytes('<?xml version="1.0"?><plist/>')), 'xml');
  assert.equal(sniffFormat(bytes('\n\t <plist version="1.0">')), 'xml');
  assert.equal(sniffFormat(bytes([0xef, 0xbb, 0xbf], '<?xml?>')), 'xml', 'after a byte order mark');
  assert.equal(sniffFormat(bytes('  {"$class": "x"}')), 'json');
  assert.equal(sniffFormat(bytes('[1]')), 'json');
  assert.equal(sniffFormat(bytes('"text"')), 'json');
  assert.equal(sniffFormat(bytes([0xef, 0xbb, 0xbf], '{}')), 'json');
  assert.equal(sniffFormat(bytes('')), 'binary', 'empty: the server says what it is');
  assert.equal(sniffFormat(bytes('garbage')), 'binary');
  assert.equal(sniffFormat(bytes('x'.repeat(70), 'streamtyped')), 'binary', 'only the first 64 bytes are read');
});

test('sniffing a large file reads its head only', () => {
  const big = new ArrayBuffer(64 * 1024 * 1024);
  assert.equal(sniffFormat(big), 'binary');
});

test('decode requests for each view', () => {
  assert.equal(decodeURL('readable'), '/v1/decode?view=readable&exactNumbers=1');
  assert.equal(decodeURL('readable', { maxDepth: 64, nested: true }), '/v1/decode?view=readable&exactNumbers=1&maxDepth=64&nested=1');
  assert.equal(decodeURL('raw', { maxDepth: 64, nested: true }), '/v1/decode?view=raw');
  assert.equal(decodeURL('summary', { maxDepth: 64, nested: true }), '/v1/decode?view=summary&nested=1');
  assert.equal(decodeURL('readable', { maxDepth: 0 }), '/v1/decode?view=readable&exactNumbers=1');
});

test('a too-deep reply is asked again with maxDepth; nothing else is', () => {
  const tooDeep = { status: 413, type: 'urn:archive-service:problem:too-deep', limit: 900, depth: 50000 };
  assert.equal(retryDepth(tooDeep), 64);
  assert.equal(retryDepth({ ...tooDeep, limit: 40 }), 40);
  assert.equal(retryDepth({ ...tooDeep, status: 400 }), null);
  assert.equal(retryDepth({ ...tooDeep, limit: '900' }), null);
  assert.equal(retryDepth({ ...tooDeep, type: 'urn:archive-service:problem:too-deep-to-indent' }), null);
  assert.equal(retryDepth({ status: 413, limit: 5 }), null);
  assert.equal(retryDepth({ title: 'The server could not be reached' }), null);
  assert.equal(tooDeepNotice(50000, 64),
    'This archive nests 50,000 levels deep, more than this server writes in one piece, so its deepest objects are in "$table" ' +
    'at the end (maxDepth=64); follow the links to reach them.');
});

test('encode formats', () => {
  assert.equal(encodeFormat('same', 'xml'), 'xml');
  assert.equal(encodeFormat('same', 'binary'), 'binary');
  assert.equal(encodeFormat('same', 'typedstream'), 'binary');
  assert.equal(encodeFormat('same', 'json'), 'binary');
  assert.equal(encodeFormat('xml', 'binary'), 'xml');
  assert.equal(encodeFormat('binary', 'xml'), 'binary');
});

test('download names', () => {
  assert.equal(baseName('save.plist'), 'save');
  assert.equal(baseName('a.b.c'), 'a.b');
  assert.equal(baseName('noext'), 'noext');
  assert.equal(baseName('.plist'), '.plist');
  assert.equal(baseName(null), 'archive');
  assert.equal(jsonFileName('save.plist', 'readable'), 'save.json');
  assert.equal(jsonFileName('save.plist', 'raw'), 'save.raw.json');
  assert.equal(jsonFileName(null, 'readable'), 'archive.json');
  assert.equal(archiveFileName({ name: 'save.plist', format: 'binary' }, false, false), 'save.plist');
  assert.equal(archiveFileName({ name: 'save.plist', format: 'binary' }, true, false), 'save.edited.plist');
  assert.equal(archiveFileName({ name: 'doc.rtfd', format: 'typedstream' }, true, true), 'doc.edited.rtfd');
  assert.equal(archiveFileName({ name: 'noext', format: 'binary' }, false, false), 'noext.plist');
  assert.equal(archiveFileName({ name: 'save.json', format: 'json' }, false, false), 'save.plist');
  assert.equal(archiveFileName({ name: 'old.json', format: 'json' }, true, true), 'old.edited.typedstream');
});
