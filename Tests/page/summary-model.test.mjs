import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  KEYS_PER_CLASS, classChainText, classKeysText, containersText, countCellText, dictionaryKindsText, summaryFacts,
} from '../../Sources/ArchiveServer/Resources/page/summary-model.mjs';

test('facts in order, numbers with separators, missing ones left out', () => {
  const facts = summaryFacts({
    format: 'keyedArchive', bytes: 85680, objects: 12345, classes: [{}, {}, {}], shared: 0, cyclic: 7, nesting: { readable: 1200, raw: 3 },
  });
  assert.deepEqual(facts, [
    ['format', 'keyedArchive', 'format'],
    ['size', '83.7 KiB', 'bytes'],
    ['objects', '12,345', 'objects'],
    ['classes', '3', 'classCount'],
    ['shared', '0', 'shared'],
    ['cyclic', '7', 'cyclic'],
    ['nesting (readable)', '1,200', 'nestingReadable'],
    ['nesting (raw)', '3', 'nestingRaw'],
  ]);
  assert.deepEqual(summaryFacts({}), []);
  assert.deepEqual(summaryFacts({ format: 'json', bytes: '12', objects: null, nesting: 4, classes: 'x' }), [['format', 'json', 'format']]);
});

test('facts of any type are text', () => {
  const facts = summaryFacts({ format: '<b>x</b>', cyclic: false, shared: { n: 1 } });
  assert.deepEqual(facts, [['format', '<b>x</b>', 'format'], ['shared', '[object Object]', 'shared'], ['cyclic', 'false', 'cyclic']]);
});

test('a class\'s keys with their kinds', () => {
  const keys = [
    { key: 'name', count: 4, kinds: { string: 4 } },
    { key: 'age', count: 4, kinds: { integer: 3, null: 1 } },
    { key: 'odd' },
  ];
  assert.equal(classKeysText(keys), 'name (string) · age (integer 3, null 1) · odd ()');
  const many = Array.from({ length: KEYS_PER_CLASS + 3 }, (_, i) => ({ key: `k${i}`, count: 1, kinds: { string: 1 } }));
  const text = classKeysText(many);
  assert.ok(text.endsWith(` · k${KEYS_PER_CLASS - 1} (string) · 3 more`), text);
  assert.ok(!text.includes(`k${KEYS_PER_CLASS} `));
  assert.equal(classKeysText(many.slice(0, KEYS_PER_CLASS)).includes('more'), false);
});

test('dictionary kinds, containers, cells and chains', () => {
  assert.equal(dictionaryKindsText({ string: 4, integer: 1 }), 'string 4, integer 1');
  assert.equal(dictionaryKindsText(undefined), '');
  assert.equal(containersText({ arrays: 1, dictionaries: 2 }), '1 array, 2 dictionaries');
  assert.equal(containersText({}), '0 arrays, 0 dictionaries');
  assert.equal(containersText({ arrays: 12000, dictionaries: 1 }), '12,000 arrays, 1 dictionary');
  assert.equal(countCellText(1234), '1,234');
  assert.equal(countCellText(undefined), '');
  assert.equal(countCellText('12'), '');
  assert.equal(classChainText({ class: 'NSMutableArray', chain: ['NSMutableArray', 'NSArray', 'NSObject'] }), 'NSMutableArray → NSArray → NSObject');
  assert.equal(classChainText({ class: 'Team' }), 'Team');
});
