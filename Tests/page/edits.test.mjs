import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  changes, checkRunLengths, dropStaleColourLabels, editKind, editorText, isEditableSlot, parseEdit, setMember,
} from '../../Sources/ArchiveServer/Resources/page/edits.mjs';

test('what can be edited, and as what', () => {
  assert.equal(editKind('s'), 'string');
  assert.equal(editKind(true), 'boolean');
  assert.equal(editKind(3), 'integer');
  assert.equal(editKind(-0.5), 'real');
  assert.equal(editKind({ $real: '3.0' }), 'real');
  assert.equal(editKind({ $integer: '18446744073709551615' }), 'integer');
  assert.equal(editKind({ $date: '2024-05-17T09:30:00Z' }), 'date');
  assert.equal(editKind({ $string: 'x' }), '$string');
  assert.equal(editKind({ $text: 'x' }), '$text');
  assert.equal(editKind({ $bytesText: 'x' }), '$bytesText');
  for (const v of [null, [], {}, { $date: 5 }, { $string: { $text: 'x' } }, { $text: 'x', $class: 'A' }, { $data: 'AA==' },
    { $ref: 1 }, { $uuid: 'x' }, { name: 'x' }]) {
    assert.equal(editKind(v), null, JSON.stringify(v));
  }
});

test('format members are never edited', () => {
  for (const slot of ['$class', '$id', '$real', '$date', '$text', '$length']) assert.ok(!isEditableSlot(slot), slot);
  for (const slot of ['$string', '$$class', 'name', 0, null]) assert.ok(isEditableSlot(slot), String(slot));
});

test('an editor starts with the value or the wrapper\'s member', () => {
  assert.equal(editorText('a'), 'a');
  assert.equal(editorText(12), '12');
  assert.equal(editorText(false), 'false');
  assert.equal(editorText({ $real: '3.0' }), '3.0');
  assert.equal(editorText({ $date: '2024-05-17T09:30:00Z' }), '2024-05-17T09:30:00Z');
});

test('strings and wrapped text are kept exactly, spaces and markup too', () => {
  const hostile = '  <script>alert(1)</script>\n';
  assert.equal(parseEdit('string', hostile), hostile);
  assert.deepEqual(parseEdit('$text', hostile), { $text: hostile });
  assert.deepEqual(parseEdit('$string', ''), { $string: '' });
  assert.deepEqual(parseEdit('$bytesText', 'é'), { $bytesText: 'é' });
});

test('booleans', () => {
  assert.equal(parseEdit('boolean', ' true '), true);
  assert.equal(parseEdit('boolean', 'false'), false);
  for (const t of ['True', '1', 'yes', '']) assert.throws(() => parseEdit('boolean', t), /true or false/);
});

test('integers stay integers; past a double\'s exact range, as text', () => {
  assert.equal(parseEdit('integer', '42'), 42);
  assert.equal(parseEdit('integer', ' -7 '), -7);
  assert.equal(parseEdit('integer', '0'), 0);
  assert.equal(parseEdit('integer', '9007199254740991'), 9007199254740991);
  assert.deepEqual(parseEdit('integer', '9007199254740993'), { $integer: '9007199254740993' });
  assert.deepEqual(parseEdit('integer', '-18446744073709551616'), { $integer: '-18446744073709551616' });
  for (const t of ['1.0', '01', '-0x1', '1e3', '+1', '', '-', '1 2']) assert.throws(() => parseEdit('integer', t), /integer/, t);
});

test('reals stay reals, with or without a fraction', () => {
  assert.equal(parseEdit('real', '2.5'), 2.5);
  assert.equal(parseEdit('real', '-1e-3'), -0.001);
  assert.deepEqual(parseEdit('real', '3'), { $real: '3.0' });
  assert.deepEqual(parseEdit('real', '3.0'), { $real: '3.0' });
  assert.deepEqual(parseEdit('real', '1e3'), { $real: '1e3' });
  assert.deepEqual(parseEdit('real', '-0'), { $real: '-0.0' });
  assert.deepEqual(parseEdit('real', '-0.0'), { $real: '-0.0' });
  assert.deepEqual(parseEdit('real', 'NaN'), { $real: 'nan' });
  assert.deepEqual(parseEdit('real', '-Infinity'), { $real: '-inf' });
  assert.deepEqual(parseEdit('real', 'inf'), { $real: 'inf' });
  assert.throws(() => parseEdit('real', '1e400'), /out of range/);
  for (const t of ['.5', '5.', '1,5', 'one', '', '0x10', 'infinite']) assert.throws(() => parseEdit('real', t), /real number/, t);
});

test('dates in UTC', () => {
  assert.deepEqual(parseEdit('date', ' 2024-05-17T09:30:00Z '), { $date: '2024-05-17T09:30:00Z' });
  assert.deepEqual(parseEdit('date', '2024-05-17T09:30:00.125Z'), { $date: '2024-05-17T09:30:00.125Z' });
  for (const t of ['2024-05-17', '2024-05-17T09:30:00+02:00', '2024-05-17 09:30:00Z', 'yesterday']) {
    assert.throws(() => parseEdit('date', t), /2024-05-17T09:30:00Z/, t);
  }
});

test('a kind the page does not edit is refused', () => {
  assert.throws(() => parseEdit('$data', 'AA=='), /cannot be edited/);
  assert.throws(() => parseEdit(null, 'x'), /cannot be edited/);
});

test('an attributed string\'s text keeps its length in UTF-16 units', () => {
  const attributed = { value: { $class: 'NSAttributedString', $string: 'héllo', $runs: [] }, slot: null, parent: null };
  const text = { slot: '$string', value: 'héllo', parent: attributed };
  checkRunLengths(text, 'héllo', 'HÉLLO');
  assert.throws(() => checkRunLengths(text, 'héllo', 'hello!'), /keep it 5 UTF-16 units long \(it is 6\)/);
  assert.throws(() => checkRunLengths(text, 'ab', '😀😀'), /keep it 2 UTF-16 units long \(it is 4\)/, 'an emoji is two units');
  checkRunLengths(text, 'ab', '😀');

  // The text as a string object: `$string` of the `$string` member.
  const stringObject = { slot: '$string', value: { $class: 'NSString', $string: 'abc' }, parent: attributed };
  const inner = { slot: '$string', value: 'abc', parent: stringObject };
  assert.throws(() => checkRunLengths(inner, 'abc', 'abcd'), /keep it 3/);
  assert.throws(() => checkRunLengths(stringObject, { $string: 'abc' }, { $string: 'ab' }), /keep it 3/);

  // Text without runs, and members other than the text, are free.
  const plain = { value: { $class: 'NSString', $string: 'x' }, slot: null, parent: null };
  checkRunLengths({ slot: '$string', value: 'x', parent: plain }, 'x', 'longer');
  checkRunLengths({ slot: 'name', value: 'x', parent: attributed }, 'x', 'longer');
  checkRunLengths({ slot: '$string', value: 'x', parent: null }, 'x', 'longer');
});

test('a change is a change of JSON', () => {
  assert.ok(!changes('a', 'a'));
  assert.ok(!changes({ $real: '3.0' }, { $real: '3.0' }));
  assert.ok(changes(3, { $real: '3.0' }));
  assert.ok(changes('3', 3));
});

test('a member named __proto__ is written as a member', () => {
  const doc = JSON.parse('{"__proto__": "old", "a": 1}');
  setMember(doc, '__proto__', 'new');
  assert.equal(Object.getPrototypeOf(doc), Object.prototype, 'the prototype is untouched');
  assert.deepEqual(Object.keys(doc), ['__proto__', 'a']);
  assert.equal(JSON.stringify(doc), '{"__proto__":"new","a":1}');

  const fresh = {};
  setMember(fresh, '__proto__', { polluted: true });
  assert.equal(({}).polluted, undefined);
  assert.equal(JSON.stringify(fresh), '{"__proto__":{"polluted":true}}');

  const list = ['a', 'b'];
  setMember(list, 1, 'c');
  assert.deepEqual(list, ['a', 'c']);
});

test('a colour\'s space edited takes its components\' space labels out', () => {
  const colour = {
    $class: 'NSColor', NSColorSpace: 2,
    NSRGB: { $bytes: { $components: [1, 0, 0], $hex: '#FF0000', $space: 'calibratedRGB' } },
    NSComponents: { $class: 'NSMutableData', $data: { $components: [1, 0, 0, 1], $space: 'sRGB IEC61966-2.1', $nulTerminated: false } },
    NSWhite: { $ref: 3 },
    other: { $bytes: { $components: [0.5], $space: 'kept' } },
  };
  assert.deepEqual(dropStaleColourLabels(colour, 'NSColorSpace'), ['NSRGB', 'NSComponents']);
  assert.deepEqual(colour.NSRGB, { $bytes: { $components: [1, 0, 0], $hex: '#FF0000' } });
  assert.deepEqual(colour.NSComponents.$data, { $components: [1, 0, 0, 1], $nulTerminated: false });
  assert.equal(colour.other.$bytes.$space, 'kept');
  // Another key, or a container that is not an object: nothing.
  const again = { NSColorSpace: 1, NSRGB: { $bytes: { $components: [1], $space: 'calibratedRGB' } } };
  assert.deepEqual(dropStaleColourLabels(again, 'name'), []);
  assert.deepEqual(dropStaleColourLabels([again], 0), []);
  assert.equal(again.NSRGB.$bytes.$space, 'calibratedRGB');
  assert.deepEqual(dropStaleColourLabels(again, 'NSCustomColorSpace'), ['NSRGB']);
});
