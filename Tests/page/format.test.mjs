import { test } from 'node:test';
import assert from 'node:assert/strict';

import { PREVIEW_CHARS, base64Length, bytesText, clip, countText, nameParts, plural } from '../../Sources/ArchiveServer/Resources/page/format.mjs';

test('clip keeps text up to its limit and marks a cut', () => {
  assert.equal(clip('abc', 3), 'abc');
  assert.equal(clip('abcd', 3), 'abc…');
  assert.equal(clip('', 0), '');
  assert.equal(clip('a'.repeat(PREVIEW_CHARS)), 'a'.repeat(PREVIEW_CHARS));
  assert.equal(clip('a'.repeat(PREVIEW_CHARS + 1)), 'a'.repeat(PREVIEW_CHARS) + '…');
  // Markup is text like any other: clipped, never changed.
  assert.equal(clip('<script>alert(1)</script>', 8), '<script>…');
});

test('counts have thousands separators whatever the locale', () => {
  assert.equal(countText(0), '0');
  assert.equal(countText(999), '999');
  assert.equal(countText(1000), '1,000');
  assert.equal(countText(1234567), '1,234,567');
  assert.equal(countText(-4500), '-4,500');
});

test('plural is singular for exactly one', () => {
  assert.equal(plural(1, 'byte'), '1 byte');
  assert.equal(plural(0, 'byte'), '0 bytes');
  assert.equal(plural(2048, 'byte'), '2,048 bytes');
  assert.equal(plural(1, 'class', 'classes'), '1 class');
  assert.equal(plural(3, 'more class', 'more classes'), '3 more classes');
});

test('sizes in B, KiB and MiB', () => {
  assert.equal(bytesText(0), '0 B');
  assert.equal(bytesText(1023), '1023 B');
  assert.equal(bytesText(1024), '1.0 KiB');
  assert.equal(bytesText(1536), '1.5 KiB');
  assert.equal(bytesText((1 << 20) - 1), '1024.0 KiB');
  assert.equal(bytesText(1 << 20), '1.0 MiB');
  assert.equal(bytesText(50 * 1024 * 1024 + 300000), '50.3 MiB');
});

test('base64 lengths without padding', () => {
  assert.equal(base64Length(''), 0);
  assert.equal(base64Length('AA=='), 1);
  assert.equal(base64Length('AAA='), 2);
  assert.equal(base64Length('AAAA'), 3);
  assert.equal(base64Length(Buffer.from('hello, world').toString('base64')), 12);
  for (let n = 0; n < 10; n++) assert.equal(base64Length(Buffer.alloc(n, 0xfb).toString('base64')), n);
  assert.equal(base64Length('===='), 0);
});

test('class names are cut between words, and join back whole', () => {
  assert.deepEqual(nameParts('NSMutableAttributedString'), ['NSMutable', 'Attributed', 'String']);
  assert.deepEqual(nameParts('NSObject'), ['NSObject']);
  assert.deepEqual(nameParts('MyApp.PlayerV2'), ['My', 'App.', 'Player', 'V2']);
  assert.deepEqual(nameParts('snake_case_name'), ['snake_', 'case_', 'name']);
  assert.deepEqual(nameParts(''), ['']);
  assert.deepEqual(nameParts('x'), ['x']);
  for (const name of ['NSMutableAttributedString', 'a.b_cD9Ef', '<img onerror=x>', 'ÉtéNSData']) {
    assert.equal(nameParts(name).join(''), name);
  }
});
