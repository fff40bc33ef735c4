import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  archiveFileName, baseName, decodeURL, encodeFormat, jsonFileName, retryDepth, sniffFormat, tooDeepNotice,
} from '../../Sources/ArchiveServer/Resources/page/archive-file.mjs';

// The formats by their first bytes: sniffing.test.mjs, on the table the codec's tests share.

test('sniffing a large file reads its head only', () => {
  const big = new ArrayBuffer(64 * 1024 * 1024);
  assert.equal(sniffFormat(big), 'binary');
  new Uint8Array(big).set([0x04, 0x0b, ...Buffer.from('typedstream', 'latin1')]);
  assert.equal(sniffFormat(big), 'typedstream');
});

test('decode requests for each view', () => {
  assert.equal(decodeURL('readable'), '/v1/decode?view=readable&exactNumbers=1');
  assert.equal(decodeURL('readable', { maxDepth: 64, nested: true }), '/v1/decode?view=readable&exactNumbers=1&maxDepth=64&nested=1');
  assert.equal(decodeURL('raw', { maxDepth: 64, nested: true }), '/v1/decode?view=raw');
  assert.equal(decodeURL('summary', { maxDepth: 64, nested: true }), '/v1/decode?view=summary&nested=1');
  assert.equal(decodeURL('plain', { maxDepth: 64, nested: true }), '/v1/decode?view=plain&nested=1');
  assert.equal(decodeURL('plain'), '/v1/decode?view=plain');
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
  assert.equal(jsonFileName('save.plist', 'plain'), 'save.plain.json');
  assert.equal(jsonFileName(null, 'readable'), 'archive.json');
  assert.equal(archiveFileName({ name: 'save.plist', format: 'binary' }, false, false), 'save.plist');
  assert.equal(archiveFileName({ name: 'save.plist', format: 'binary' }, true, false), 'save.edited.plist');
  assert.equal(archiveFileName({ name: 'doc.rtfd', format: 'typedstream' }, true, true), 'doc.edited.rtfd');
  assert.equal(archiveFileName({ name: 'noext', format: 'binary' }, false, false), 'noext.plist');
  assert.equal(archiveFileName({ name: 'save.json', format: 'json' }, false, false), 'save.plist');
  assert.equal(archiveFileName({ name: 'old.json', format: 'json' }, true, true), 'old.edited.typedstream');
});
