import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  PAGE_SIZE, childCount, childrenOf, entryIndex, gapOf, isLeaf, leafText, nodeCount, pageCount, previewOf, sizeText,
  swatchColour,
} from '../../Sources/ArchiveServer/Resources/page/tree-model.mjs';

const HOSTILE = '<img src=x onerror="alert(1)">\u2028"\\';

test('leaves: scalars, references, wrappers of scalars', () => {
  for (const v of [null, 0, -1.5, '', 'text', true, false, { $ref: 3 }, { $ref: 3, $class: 'X' }, { $date: '2024-05-17T09:30:00Z' },
    { $data: 'AAAA' }, { $real: '1.0' }, { $length: 3, $attributesOf: 0 }, { $string: null }]) {
    assert.ok(isLeaf(v), JSON.stringify(v));
  }
  for (const v of [[], [1], {}, { $class: 'NSDate', $date: 'x' }, { name: 1 }, { $id: 1 }, { $date: 'x', $id: 1 },
    { $$date: 'x' }, { $string: { $text: 'x' } }, { $array: [] }]) {
    assert.ok(!isLeaf(v), JSON.stringify(v));
  }
});

test('children: members, collection items with exact paths, no header members', () => {
  const v = { $class: 'NSMutableArray', $id: 4, $array: ['a', { $ref: 1 }], count: 2, $$odd: 'escaped', $set: 'not a list' };
  const children = childrenOf(v);
  assert.deepEqual(children.map((c) => [c.segs, c.label, c.slot]), [
    [['$array', 0], '[0]', 0],
    [['$array', 1], '[1]', 1],
    [['count'], 'count', 'count'],
    [['$$odd'], '$odd', '$$odd'],
    [['$set'], '$set', '$set'],
  ]);
  assert.equal(children[0].container, v.$array);
  assert.equal(children[2].container, v);
  for (const c of children) assert.equal(c.container[c.slot], c.value);
  assert.equal(childCount(v), children.length);
  assert.deepEqual(childrenOf(['x', null]).map((c) => [c.segs, c.label, c.value]), [[[0], '[0]', 'x'], [[1], '[1]', null]]);
});

test('child counts agree with the children on every shape', () => {
  const shapes = [[], {}, [1, [2]], { $class: 'A', $id: 1 }, { $orderedSet: [1, 2, 3], $class: 'S' }, { $array: {}, x: 1 }, { __proto__: null, a: 1 }];
  for (const v of shapes) assert.equal(childCount(v), childrenOf(v).length, JSON.stringify(v));
});

test('sizes: lists in brackets, objects in braces', () => {
  assert.equal(sizeText([1, 2]), '[2]');
  assert.equal(sizeText({ $class: 'NSSet', $set: new Array(1200).fill(0) }), '[1,200]');
  assert.equal(sizeText({ $class: 'Team', $id: 1, name: 'A', city: 'B' }), '{2}');
});

test('leaf texts and kinds', () => {
  assert.deepEqual(leafText(null), ['null', 'null']);
  assert.deepEqual(leafText('a'), ['"a"', 'string']);
  assert.deepEqual(leafText(2.5), ['2.5', 'number']);
  assert.deepEqual(leafText(false), ['false', 'boolean']);
  assert.deepEqual(leafText({ $real: '3.0' }), ['3.0', 'number']);
  assert.deepEqual(leafText({ $integer: '18446744073709551615' }), ['18446744073709551615', 'number']);
  assert.deepEqual(leafText({ $date: '2024-05-17T09:30:00Z' }), ['date 2024-05-17T09:30:00Z', 'other']);
  assert.deepEqual(leafText({ $uuid: 'AB-CD' }), ['uuid AB-CD', 'other']);
  assert.deepEqual(leafText({ $length: 4, $attributesOf: 1 }), ['length 4 · the attributes of run [1]', 'other']);
  assert.deepEqual(leafText({ $text: 'hi' }), ['"hi"', 'string']);
  assert.deepEqual(leafText({ $bytesText: 'raw' }), ['"raw"', 'string']);
  assert.deepEqual(leafText({ $data: 'AAECAw==' }), ['data · 4 bytes · AAECAw==', 'other']);
  assert.deepEqual(leafText({ $bytes: 'AA==' }), ['bytes · 1 byte · AA==', 'other']);
  assert.deepEqual(leafText({ $other: 1 }), ['{"$other":1}', 'other']);
  const long = 'x'.repeat(500);
  assert.equal(leafText(long)[0], JSON.stringify('x'.repeat(120) + '…'));
  assert.equal(leafText({ $data: 'A'.repeat(400) })[0], `data · 300 bytes · ${'A'.repeat(48)}…`);
});

test('a hostile string is shown as its JSON, one line', () => {
  const [text, kind] = leafText(HOSTILE);
  assert.equal(kind, 'string');
  assert.equal(JSON.parse(text), HOSTILE);
  assert.ok(!/[\n\r]/.test(text));
  assert.equal(JSON.parse(leafText({ $text: HOSTILE })[0]), HOSTILE);
});

test('previews: the first three scalar members', () => {
  assert.equal(previewOf({ $class: 'T', name: 'Ann', list: [1], age: 3, ok: true, more: null }), 'name="Ann" age=3 ok=true');
  assert.equal(previewOf({ $$escaped: 1, $id: 2 }), '');
  assert.equal(previewOf(['a']), '');
  assert.equal(previewOf({ s: 'y'.repeat(40) }), `s="${'y'.repeat(30)}…"`);
  assert.equal(previewOf({ [HOSTILE]: HOSTILE }), `${HOSTILE}=${JSON.stringify(HOSTILE.slice(0, 30) + "…")}`);
});

test('a swatch only for a $hex member that is exactly a colour', () => {
  assert.equal(swatchColour('$hex', '#1F5fbf'), '#1F5fbf');
  for (const v of ['#1f5fb', '#1f5fbf0', 'red', '#1f5fbf; background: url(x)', 'url(#1f5fbf)', 7]) {
    assert.equal(swatchColour('$hex', v), null, String(v));
  }
  assert.equal(swatchColour('hex', '#1f5fbf'), null);
  assert.equal(swatchColour('$$hex', '#1f5fbf'), null);
});

test('nodes counted up to a limit', () => {
  assert.equal(nodeCount('x', 10), 1);
  assert.equal(nodeCount({ a: [1, 2], b: null }, 100), 5);
  assert.equal(nodeCount(new Array(10000).fill({ a: 1 }), 500), 500);
});

test('finding the child a path leads to', () => {
  const list = ['a', 'b'];
  assert.equal(entryIndex(list, childrenOf(list), [1], 0), 1);
  assert.equal(entryIndex(list, childrenOf(list), [2], 0), -1);
  assert.equal(entryIndex(list, childrenOf(list), ['1'], 0), -1);
  const v = { $class: 'A', name: 'n', $array: ['x', 'y', 'z'], tail: 1 };
  const entries = childrenOf(v);
  assert.equal(entryIndex(v, entries, ['name'], 0), 0);
  assert.equal(entryIndex(v, entries, ['$array', 2], 0), 3);
  assert.equal(entryIndex(v, entries, ['$array', 3], 0), -1);
  assert.equal(entryIndex(v, entries, ['$array'], 0), -1);
  assert.equal(entryIndex(v, entries, ['tail'], 0), 4);
  assert.equal(entryIndex(v, entries, ['$class'], 0), -1);
  assert.equal(entryIndex(v, entries, ['x', 'name'], 1), 0, 'from the middle of a path');
});

test('pages and the rows that stand for the pages not shown', () => {
  assert.equal(pageCount(0), 0);
  assert.equal(pageCount(PAGE_SIZE), 1);
  assert.equal(pageCount(PAGE_SIZE + 1), 2);
  assert.equal(gapOf(1000, 2, 2), null);
  // Below the shown pages: the first of the gap shows next.
  assert.deepEqual(gapOf(1000, 1, 5), { from: 1, to: 5, shows: 1, text: 'show [200]…[399] (800 not shown: [200]…[999])' });
  // Above every shown page: the last of the gap, next to them.
  assert.deepEqual(gapOf(50000, 0, 125), { from: 0, to: 125, shows: 124, text: 'show [24800]…[24999] (25,000 not shown: [0]…[24999])' });
  // One page, cut short by the end.
  assert.deepEqual(gapOf(450, 2, 3), { from: 2, to: 3, shows: 2, text: 'show [400]…[449]' });
  // The whole list from its start: the first page.
  assert.equal(gapOf(450, 0, 3).shows, 0);
});

test('a data value with the kind the service wrote stays one row, which says the kind', () => {
  const png = { $data: 'iVBORw0KGgo=', $kind: { name: 'png', width: 413, height: 562 } };
  assert.ok(isLeaf(png));
  assert.deepEqual(leafText(png), ['data · 8 bytes · PNG image, 413 × 562 pixels', 'other']);
  assert.deepEqual(leafText({ $bytes: 'JVBERi0=', $kind: { name: 'pdf' } }), ['bytes · 5 bytes · PDF document', 'other']);
  // A kind this page does not know says nothing; a bookmark beside the bytes still opens.
  assert.deepEqual(leafText({ $data: 'AAEC', $kind: { name: 'future' } }), ['data · 3 bytes · AAEC', 'other']);
  assert.ok(!isLeaf({ $data: 'AAEC', $bookmark: { path: [] } }));
  assert.ok(!isLeaf({ $kind: { name: 'png' }, $id: 3, $data: 'AAEC' }));
});
