import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

import {
  BASE64_KEYS, COLLECTION_KEYS, KEY, OBJECT_HEADER_KEYS, PAYLOAD_KEYS, PLACE_ID_PREFIX, TEXT_WRAPPER_KEYS, classOf,
  idOf, isCollectionObject, isEscapedKey, isFormatSlot, isMarkerKey, isObject, isReference, isTypedStreamDocument,
  memberName, startsLikeMarker,
} from '../../Sources/ArchiveServer/Resources/page/mapping.mjs';
import { REPOSITORY, codeOf, moduleNames, pageSource } from './page-files.mjs';

/// Every Swift source of the codec, read once.
function codecSources() {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name.endsWith('.swift')) out.push(readFileSync(file, 'utf8'));
    }
  };
  walk(path.join(REPOSITORY, 'Sources/ArchiveCodec'));
  return out.join('\n');
}

test('every key is a marker, named once, and frozen', () => {
  const values = Object.values(KEY);
  assert.ok(values.length >= 20);
  for (const key of values) {
    assert.match(key, /^\$[A-Za-z]+$/);
    assert.ok(isMarkerKey(key), key);
  }
  assert.equal(new Set(values).size, values.length, 'a key named twice');
  assert.ok(Object.isFrozen(KEY));
  for (const list of [COLLECTION_KEYS, TEXT_WRAPPER_KEYS, PAYLOAD_KEYS, BASE64_KEYS, OBJECT_HEADER_KEYS]) {
    assert.ok(Object.isFrozen(list));
    for (const key of list) assert.ok(values.includes(key), key);
  }
  assert.equal(PLACE_ID_PREFIX, KEY.id + ' ');
});

test('the codec writes every key the page knows', () => {
  const codec = codecSources();
  const missing = Object.values(KEY).filter((key) => !codec.includes(JSON.stringify(key)));
  assert.deepEqual(missing, [], 'keys the page reads that no codec source spells');
});

test('no other module spells a $ key', () => {
  const offenders = [];
  for (const name of moduleNames()) {
    if (name === 'mapping.mjs') continue;
    const code = codeOf(pageSource(name));
    // `${` is interpolation, `$@]` part of a character class; a `$` before a letter is a key.
    for (const m of code.matchAll(/\$[A-Za-z]\w*/g)) offenders.push(`${name}: ${m[0]}`);
  }
  assert.deepEqual(offenders, []);
});

test('the one-file check sees keys in strings, properties and patterns', () => {
  // The check above is only as good as its pattern: it must catch each way a key can be spelled.
  for (const spelled of ["v['$real']", 'v.$real', '/^\\$id (\\d+)/', '`${x} $date`', '"$class"']) {
    assert.match(codeOf(spelled), /\$[A-Za-z]/, spelled);
  }
  assert.doesNotMatch(codeOf('const s = `${a}${b}`; // $class in a comment\n/* $id */'), /\$[A-Za-z]/);
});

test('markers, escaped members and plain members', () => {
  assert.ok(isMarkerKey('$class'));
  assert.ok(isMarkerKey('$'));
  assert.ok(!isMarkerKey('$$class'));
  assert.ok(!isMarkerKey('class'));
  assert.ok(!isMarkerKey(''));
  assert.ok(isEscapedKey('$$class'));
  assert.ok(isEscapedKey('$$'));
  assert.ok(!isEscapedKey('$class'));
  assert.ok(startsLikeMarker('$$x') && startsLikeMarker('$x') && !startsLikeMarker('x$'));
  assert.equal(memberName('$$class'), '$class');
  assert.equal(memberName('$$$x'), '$$x');
  assert.equal(memberName('$class'), '$class');
  assert.equal(memberName('name'), 'name');
});

test('format slots: markers but a string object\'s string', () => {
  assert.ok(isFormatSlot('$class'));
  assert.ok(isFormatSlot('$id'));
  assert.ok(isFormatSlot('$real'));
  assert.ok(!isFormatSlot('$string'));
  assert.ok(!isFormatSlot('$$class'));
  assert.ok(!isFormatSlot('name'));
  assert.ok(!isFormatSlot(0), 'an array index');
  assert.ok(!isFormatSlot(null), 'the root');
});

test('objects, references, classes and ids, whatever the values', () => {
  assert.ok(isObject({}));
  assert.ok(!isObject([]) && !isObject(null) && !isObject('x') && !isObject(1));
  assert.ok(isReference({ $ref: 3 }));
  assert.ok(isReference({ $ref: 'not a number' }));
  assert.ok(!isReference([{ $ref: 3 }]));
  assert.ok(!isReference({ ref: 3 }));
  assert.equal(classOf({ $class: 'NSArray' }), 'NSArray');
  assert.equal(classOf({ $class: { $string: 'NSArray' } }), undefined);
  assert.equal(classOf({ $class: '<img src=x onerror=alert(1)>' }), '<img src=x onerror=alert(1)>');
  assert.equal(classOf('NSArray'), undefined);
  assert.equal(idOf({ $id: 0 }), 0);
  assert.equal(idOf({ $id: '4' }), undefined);
  assert.equal(idOf([0]), undefined);
  assert.ok(isCollectionObject({ $class: 'NSSet', $set: [] }));
  assert.ok(isCollectionObject({ $orderedSet: 'odd' }), 'by its key, whatever the member');
  assert.ok(!isCollectionObject({ $$array: [] }));
  assert.ok(!isCollectionObject([]));
  assert.ok(isTypedStreamDocument({ $typedstream: {} }));
  assert.ok(!isTypedStreamDocument({ $keyedArchive: {} }));
  assert.ok(!isTypedStreamDocument(null));
});

test('a member named like an Object.prototype member is not a marker or a key', () => {
  const doc = JSON.parse('{"__proto__": {"$class": "X"}, "constructor": 1}');
  assert.equal(classOf(doc), undefined);
  assert.equal(idOf(doc), undefined);
  assert.ok(!isReference(doc));
  assert.equal(classOf(doc.__proto__), 'X');
});
