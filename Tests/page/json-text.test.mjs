import { test } from 'node:test';
import assert from 'node:assert/strict';

import { stringify, stringifyIteratively } from '../../Sources/ArchiveServer/Resources/page/json-text.mjs';

const SHAPES = [
  null, true, 0, -0, 1.5e300, 'x', '', [], {}, [[]], [{}], { a: [] },
  { $class: 'Team', $id: 1, name: 'Ann', list: { $array: [1, 'two', null, false, { $ref: 1 }] } },
  { 'quote"': 'back\\slash', 'new\nline': '\u0000\u001f\u2028\u2029', '</script>': '<img src=x onerror=alert(1)>' },
  { 10: 'a', 2: 'b', x: 'c', '-1': 'd' }, // keys that look like indexes come first, as JSON.stringify writes them
  { '😀': '\ud800 lone surrogate', é: 'é' },
  JSON.parse('{"__proto__": {"a": 1}, "constructor": "c"}'),
  [1, [2, [3, [4, { deep: [5] }]]]],
];

test('the loop writes what JSON.stringify writes', () => {
  for (const doc of SHAPES) {
    assert.equal(stringifyIteratively(doc), JSON.stringify(doc), JSON.stringify(doc));
    assert.equal(stringify(doc), JSON.stringify(doc));
  }
});

test('a document deeper than the stack is written by the loop', () => {
  const depth = 200000;
  let doc = { end: [] };
  for (let i = 0; i < depth; i++) doc = { n: [doc] };
  assert.throws(() => JSON.stringify(doc), RangeError);
  const text = stringify(doc);
  assert.equal(text, '{"n":['.repeat(depth) + '{"end":[]}' + ']}'.repeat(depth));
});

test('other errors are not swallowed', () => {
  assert.throws(() => stringify({ big: 1n }), TypeError);
  const cyclic = {};
  cyclic.self = cyclic;
  assert.throws(() => stringify(cyclic), TypeError);
});
