import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  BYTES_PER_LINE, PAGE_BYTES, dumpLines, offsetText, pageCountOf, pageRange, pageText,
} from '../../Sources/ArchiveServer/Resources/page/hex-dump.mjs';

test('a line: offset, 16 bytes in upper-case hex, printable ASCII', () => {
  const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x20, 0x7e, 0x7f]);
  const lines = dumpLines(bytes);
  assert.equal(lines.length, 2);
  assert.deepEqual(lines[0], { offset: '00000000', hex: '89 50 4E 47 0D 0A 1A 0A 00 00 00 0D 49 48 44 52', ascii: '.PNG........IHDR' });
  assert.deepEqual(lines[1], { offset: '00000010', hex: '20 7E 7F', ascii: ' ~.' });
});

test('lines keep the offset they are at', () => {
  const lines = dumpLines(new Uint8Array(40), 4096);
  assert.deepEqual(lines.map((l) => l.offset), ['00001000', '00001010', '00001020']);
  assert.equal(offsetText(0xffffffff), 'FFFFFFFF');
  assert.equal(offsetText(2 ** 32 + 16), '100000010');
  assert.deepEqual(dumpLines(new Uint8Array(0)), []);
});

test('every byte shows as two hex digits and markup is text', () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  const lines = dumpLines(all);
  assert.equal(lines.length, 256 / BYTES_PER_LINE);
  const hex = lines.map((l) => l.hex).join(' ').split(' ');
  assert.deepEqual(hex.map((h) => parseInt(h, 16)), [...all]);
  assert.ok(hex.every((h) => /^[0-9A-F]{2}$/.test(h)));
  const ascii = lines.map((l) => l.ascii).join('');
  assert.equal(ascii.length, 256);
  assert.equal(ascii.slice(0x20, 0x7f), [...all.subarray(0x20, 0x7f)].map((b) => String.fromCharCode(b)).join(''));
  assert.equal([...ascii].filter((c, i) => (i < 0x20 || i >= 0x7f) && c === '.').length, 256 - 95);
  assert.equal(dumpLines(new TextEncoder().encode('<img src=x>'))[0].ascii, '<img src=x>');
});

test('pages of 4 KiB, clamped to the value', () => {
  assert.equal(PAGE_BYTES, 4096);
  assert.equal(pageCountOf(0), 1);
  assert.equal(pageCountOf(1), 1);
  assert.equal(pageCountOf(4096), 1);
  assert.equal(pageCountOf(4097), 2);
  const size = 50 * 1024 * 1024 + 5;
  assert.deepEqual(pageRange(size, 0), { page: 0, pages: 12801, from: 0, to: 4096 });
  assert.deepEqual(pageRange(size, 1), { page: 1, pages: 12801, from: 4096, to: 8192 });
  assert.deepEqual(pageRange(size, 12800), { page: 12800, pages: 12801, from: size - 5, to: size });
  assert.deepEqual(pageRange(size, Number.MAX_SAFE_INTEGER), pageRange(size, 12800));
  assert.deepEqual(pageRange(size, -3), pageRange(size, 0));
  assert.deepEqual(pageRange(size, NaN), pageRange(size, 0));
  assert.deepEqual(pageRange(0, 5), { page: 0, pages: 1, from: 0, to: 0 });
  // A page's lines are at most 256, whatever the value's size.
  assert.equal(dumpLines(new Uint8Array(PAGE_BYTES)).length, 256);
});

test('what the pager says', () => {
  assert.equal(pageText(pageRange(10000, 1), 10000), 'bytes 4,096–8,191 of 10,000 · page 2 of 3');
  assert.equal(pageText(pageRange(10000, 2), 10000), 'bytes 8,192–9,999 of 10,000 · page 3 of 3');
  assert.equal(pageText(pageRange(0, 0), 0), 'no bytes');
});
