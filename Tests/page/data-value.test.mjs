import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

import { base64Slice, dataOf, saveName, textBytes } from '../../Sources/ArchiveServer/Resources/page/data-value.mjs';

test('data values, in every form the mapping writes them', () => {
  assert.deepEqual(dataOf({ $data: 'AAEC' }), { marker: '$data', base64: 'AAEC' });
  assert.deepEqual(dataOf({ $bytes: 'AAEC' }), { marker: '$bytes', base64: 'AAEC' });
  assert.deepEqual(dataOf({ $text: 'hi' }), { marker: '$text', text: 'hi' });
  assert.deepEqual(dataOf({ $bytesText: 'hi' }), { marker: '$bytesText', text: 'hi' });
  assert.deepEqual(dataOf({ $class: 'NSMutableData', $data: 'AAEC' }), { marker: '$data', base64: 'AAEC' });
  assert.deepEqual(dataOf({ $data: 'AAEC', $bookmark: { path: [] } }), { marker: '$data', base64: 'AAEC' });
  // A wrapper's member row: the string in the `$data` slot of an NSMutableData.
  assert.deepEqual(dataOf('AAEC', '$data'), { marker: '$data', base64: 'AAEC' });
  assert.deepEqual(dataOf('hi', '$text'), { marker: '$text', text: 'hi' });
});

test('what is not a data value', () => {
  for (const [v, slot] of [
    ['AAEC', 'name'], ['AAEC', 0], ['AAEC', null], [3, '$data'], [null, null], [[], null],
    [{ $string: 'AAEC' }, null], [{ $data: { $keyedArchive: {} } }, null], [{ $data: { $components: [0.1] } }, null],
    [{ $date: '2001-01-01T00:00:00Z' }, null], [{ data: 'AAEC' }, null], [{ $$data: 'AAEC' }, null], ['hi', '$string'],
  ]) {
    assert.equal(dataOf(v, slot), null, JSON.stringify([v, slot]));
  }
});

test('base64 decoded whole and in every slice, as node decodes it', () => {
  for (const length of [0, 1, 2, 3, 4, 5, 6, 7, 100, 4097]) {
    const bytes = randomBytes(length);
    const text = bytes.toString('base64');
    assert.deepEqual(Buffer.from(base64Slice(text)), bytes, `length ${length}`);
    for (let from = 0; from <= Math.min(length, 9); from++) {
      for (let to = from; to <= Math.min(length, 12); to++) {
        assert.deepEqual(Buffer.from(base64Slice(text, from, to)), bytes.subarray(from, to), `${length}: ${from}..${to}`);
      }
    }
    assert.deepEqual(Buffer.from(base64Slice(text, Math.max(0, length - 3), length + 10)), bytes.subarray(Math.max(0, length - 3)));
  }
});

test('a slice decodes only the characters that hold it', () => {
  // Every character but those of bytes 3,000,000–3,004,094 is not base64: the slice is read
  // from its own characters alone, and so is the length.
  const bytes = randomBytes(4095);
  const from = 3000000;
  const text = '!'.repeat((from / 3) * 4) + bytes.toString('base64') + '!'.repeat(4000) + '==';
  assert.deepEqual(Buffer.from(base64Slice(text, from, from + 4095)), bytes);
  assert.deepEqual(Buffer.from(base64Slice(text, from + 10, from + 20)), bytes.subarray(10, 20));
  assert.throws(() => base64Slice(text, from - 1, from + 1), /not base64/);
});

test('text that is not base64 is refused, not decoded to something else', () => {
  assert.throws(() => base64Slice('AA-B'), /not base64 at character 2/);
  assert.throws(() => base64Slice('AAé='), /not base64/);
  assert.throws(() => base64Slice('AA B'), /not base64/);
});

test('a saved copy is named from the nearest member name, indexes kept', () => {
  assert.equal(saveName(['image'], 'png'), 'image.png');
  assert.equal(saveName(['blob'], ''), 'blob');
  assert.equal(saveName(['[3]', 'photos', null], 'jpg'), 'photos-3.jpg');
  assert.equal(saveName(['[1]', '[3]', 'grid'], ''), 'grid-3-1');
  assert.equal(saveName(['$data', 'icon'], 'png'), 'icon.png');
  assert.equal(saveName(['$bytes', '[0]', '$data', null], 'gif'), 'data-0.gif');
  assert.equal(saveName([null], 'pdf'), 'data.pdf');
  assert.equal(saveName(['../../etc/passwd'], ''), 'etc_passwd');
  assert.equal(saveName(['a b/c\\d:e'], 'png'), 'a_b_c_d_e.png');
  assert.equal(saveName(['$$price'], ''), 'price');
  assert.equal(saveName(['...'], 'zip'), 'data.zip');
  assert.equal(saveName(['x'.repeat(500)], 'png'), 'x'.repeat(80) + '.png');
});

test('the kind the service wrote comes with the bytes, never as them', () => {
  const kind = { name: 'png', width: 1, height: 2 };
  assert.deepEqual(dataOf({ $data: 'AAEC', $kind: kind }), { marker: '$data', base64: 'AAEC', kind });
  assert.deepEqual(dataOf({ $kind: kind, $bytes: 'AAEC' }), { marker: '$bytes', base64: 'AAEC', kind });
  assert.deepEqual(dataOf({ $class: 'NSMutableData', $data: 'AAEC', $kind: kind }), { marker: '$data', base64: 'AAEC', kind });
  // Alone, or beside a nested document, it is no data value.
  assert.equal(dataOf({ $kind: kind }), null);
  assert.equal(dataOf({ $data: { $keyedArchive: {} }, $kind: kind }), null);
  assert.equal(dataOf(kind, '$kind'), null);
});

test('text after a byte order mark: the mark comes back with its bytes', () => {
  const data = dataOf({ $text: 'hé', $bom: 'utf8' });
  assert.deepEqual(data, { marker: '$text', text: 'hé', bom: 'utf8' });
  assert.deepEqual([...textBytes(data)], [0xef, 0xbb, 0xbf, 0x68, 0xc3, 0xa9]);
  assert.deepEqual([...textBytes(dataOf({ $bytesText: 'hé' }))], [0x68, 0xc3, 0xa9]);
  assert.throws(() => textBytes({ marker: '$text', text: 'x', bom: 'utf16' }), /unknown byte order mark/);
});
