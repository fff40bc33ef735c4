// The page's sniffFormat against the table of first bytes it shares with the codec's InputKind
// (Tests/Fixtures/sniffing/cases.json): this test checks each case's `page`,
// Tests/ArchiveCodecTests/InputKindTests.swift its `inputKind`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { sniffFormat } from '../../Sources/ArchiveServer/Resources/page/archive-file.mjs';
import { REPOSITORY } from './page-files.mjs';

const FIXTURES = path.join(REPOSITORY, 'Tests/Fixtures');
const { cases } = JSON.parse(readFileSync(path.join(FIXTURES, 'sniffing/cases.json'), 'utf8'));

/// `hex`'s bytes as the page holds a file's: an ArrayBuffer of exactly them.
const buffer = (hex) => {
  const bytes = Buffer.from(hex, 'hex');
  assert.equal(bytes.length * 2, hex.length, `hex of whole bytes: ${hex}`);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
};

test('every case of the shared table', () => {
  assert.ok(cases.length >= 40);
  for (const { name, hex, page } of cases) assert.equal(sniffFormat(buffer(hex)), page, name);
});

test('the table names only the page\'s four classes, each at least once', () => {
  assert.deepEqual([...new Set(cases.map((c) => c.page))].sort(), ['binary', 'json', 'typedstream', 'xml']);
});

test('a case taken from a fixture holds that file\'s first 64 bytes', () => {
  const fixtures = cases.filter((c) => c.fixture);
  assert.ok(fixtures.length >= 6);
  for (const { name, hex, fixture } of fixtures) {
    assert.equal(readFileSync(path.join(FIXTURES, fixture)).subarray(0, 64).toString('hex'), hex, name);
  }
});
