import { test } from 'node:test';
import assert from 'node:assert/strict';

import { LEAST_SECONDS, numberOf, timestampReadings, timestampTitle, utcText } from '../../Sources/ArchiveServer/Resources/page/timestamps.mjs';

const labels = (n) => timestampReadings(n).map((r) => r.label.split(' ')[0]);

test('both readings when both fall within 1990–2100, each named', () => {
  // 700,000,000 s: 2023-03-08 after 2001, 1992-03-07 after 1970.
  assert.equal(timestampTitle(700000000),
    'Apple time (seconds since 2001-01-01): 2023-03-08 20:26:40 UTC\nUnix time (seconds since 1970-01-01): 1992-03-07 20:26:40 UTC');
});

test('one reading when only one is plausible', () => {
  // A Unix time of 2024: as Apple time it is 2055, in range too.
  assert.deepEqual(labels(1700000000), ['Apple', 'Unix']);
  // 3.5e9 s: Apple 2111 (out), Unix 2080 (in).
  assert.deepEqual(labels(3.5e9), ['Unix']);
  // 5e8 s: Apple 2016 (in), Unix 1985 (out).
  assert.deepEqual(labels(5e8), ['Apple']);
  assert.match(timestampTitle(5e8), /^Apple time \(seconds since 2001-01-01\): 2016-11-05 00:53:20 UTC$/);
  // Before 2001 as Apple time: -3e8 s is 1991-06-29.
  assert.deepEqual(labels(-3e8), ['Apple']);
});

test('the range\'s ends: 1990-01-01 is in, 2100-01-01 is not', () => {
  const apple1990 = (Date.UTC(1990, 0, 1) - Date.UTC(2001, 0, 1)) / 1000;
  assert.deepEqual(labels(apple1990), ['Apple']);
  assert.deepEqual(labels(apple1990 - 1), []);
  const unix2100 = Date.UTC(2100, 0, 1) / 1000;
  assert.deepEqual(labels(unix2100 - 1), ['Unix']);
  assert.deepEqual(labels(unix2100), []);
});

test('counts and small numbers are not dates; nor is what is no number', () => {
  for (const n of [0, 1, 3, 42, 2024, 86400, 1e7, LEAST_SECONDS - 1, -5, 1e12, Infinity, NaN, null, '700000000', undefined]) {
    assert.deepEqual(timestampReadings(n), [], String(n));
    assert.equal(timestampTitle(n), null);
  }
  assert.deepEqual(labels(LEAST_SECONDS), ['Apple']);
});

test('fractions of a second are kept', () => {
  assert.equal(utcText(Date.UTC(2023, 2, 8, 20, 26, 40, 250)), '2023-03-08 20:26:40.250 UTC');
  assert.equal(utcText(0), '1970-01-01 00:00:00 UTC');
  assert.match(timestampTitle(700000000.5), /2023-03-08 20:26:40\.500 UTC/);
});

test('the numbers a tree value stands for', () => {
  assert.equal(numberOf(700000000), 700000000);
  assert.equal(numberOf({ $real: '700000000.0' }), 700000000);
  assert.equal(numberOf({ $integer: '9223372036854775807' }), 9223372036854775807);
  assert.equal(numberOf({ $real: 'nan' }), null);
  assert.equal(numberOf('700000000'), null);
  assert.equal(numberOf({ $date: '2001-01-01T00:00:00Z' }), null);
  assert.equal(numberOf(null), null);
  assert.equal(numberOf(true), null);
});
