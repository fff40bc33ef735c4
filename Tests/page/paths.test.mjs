import { test } from 'node:test';
import assert from 'node:assert/strict';

import { jqPath, parsePlace, pathKey, valueAt } from '../../Sources/ArchiveServer/Resources/page/paths.mjs';

/// Reads a jq path as this page writes it back into segments: `.name`, `."quoted"`, `[n]`.
function readJqPath(text) {
  if (text === '.') return [];
  const segs = [];
  const pattern = /\.([A-Za-z_][A-Za-z0-9_]*)|\.("(?:[^"\\]|\\.)*")|\[(\d+)\]/gy;
  let m;
  while ((m = pattern.exec(text)) !== null) {
    segs.push(m[1] !== undefined ? m[1] : m[2] !== undefined ? JSON.parse(m[2]) : Number(m[3]));
    if (pattern.lastIndex === text.length) return segs;
  }
  throw new Error(`not a jq path: ${text}`);
}

test('jq paths: root, identifiers, indexes', () => {
  assert.equal(jqPath([]), '.');
  assert.equal(jqPath(['teams', '$array', 0, 'name']), '.teams."$array"[0].name');
  assert.equal(jqPath([0, 1]), '[0][1]');
  assert.equal(jqPath(['_a9']), '._a9');
  assert.equal(jqPath(['9a']), '."9a"');
  assert.equal(jqPath(['']), '.""');
});

test('jq paths quote any other name so it reads back as itself', () => {
  const hostile = ['a.b', 'a b', 'quote"d', 'back\\slash', 'new\nline', '</code><script>alert(1)</script>', 'é', '\u0000', '[0]', '.'];
  for (const name of hostile) {
    const segs = ['root', name, 3];
    const text = jqPath(segs);
    assert.deepEqual(readJqPath(text), segs, text);
    assert.ok(!text.includes('\n'), 'one line');
  }
});

test('path keys tell paths apart', () => {
  assert.notEqual(pathKey(['0']), pathKey([0]));
  assert.notEqual(pathKey(['a', 'b']), pathKey(['a.b']));
  assert.equal(pathKey([]), '[]');
});

test('valueAt follows a path, undefined past its end', () => {
  const doc = { a: [{ b: null }, 'x'], n: 0 };
  assert.equal(valueAt(doc, []), doc);
  assert.equal(valueAt(doc, ['a', 1]), 'x');
  assert.equal(valueAt(doc, ['a', 0, 'b']), null);
  assert.equal(valueAt(doc, ['a', 0, 'b', 'c']), undefined);
  assert.equal(valueAt(doc, ['missing', 'deeper']), undefined);
  assert.equal(valueAt(doc, ['n']), 0);
});

test('places as the service names them', () => {
  const doc = {
    $class: 'League',
    teams: { $class: 'NSArray', $array: [{ $class: 'Team', $id: 47, name: 'Ann', home: { name: 'Field' } }, { $ref: 47 }] },
    'odd key': { 'x y': 'v' },
  };
  const ids = new Map([[47, ['teams', '$array', 0]]]);
  const resolve = (segs, id) => ids.get(id);
  assert.deepEqual(parsePlace('.', doc, resolve), []);
  assert.deepEqual(parsePlace('.teams.$array[0].name', doc, resolve), ['teams', '$array', 0, 'name']);
  assert.deepEqual(parsePlace('$id 47 .home.name', doc, resolve), ['teams', '$array', 0, 'home', 'name']);
  assert.deepEqual(parsePlace('.teams.$array[1]', doc, resolve), ['teams', '$array', 1]);
  assert.deepEqual(parsePlace('["odd key"]["x y"]', doc, resolve), ['odd key', 'x y']);
  assert.deepEqual(parsePlace('.teams["$array"][0]', doc, resolve), ['teams', '$array', 0]);
});

test('an $id resolves in the payload the path has entered', () => {
  const doc = { data: { $keyedArchive: { $id: 1, inner: 'in' } }, $id: 1, outer: 'out' };
  const seen = [];
  const resolve = (segs, id) => {
    seen.push([segs.slice(), id]);
    return segs.length ? ['data', '$keyedArchive'] : [];
  };
  assert.deepEqual(parsePlace('.data.$keyedArchive $id 1 .inner', doc, resolve), ['data', '$keyedArchive', 'inner']);
  assert.deepEqual(seen, [[['data', '$keyedArchive'], 1]]);
});

test('what is not a place, or leads nowhere, is null', () => {
  const doc = { a: { b: 1 } };
  const none = () => undefined;
  for (const text of ['a.b', '.a..b!', '.a[', '.a["unterminated]', '$id x', '$id 3', '.a.c', '.a[0]', '.a …', '.a["\\x41"]', '.a["\\u00"]']) {
    assert.equal(parsePlace(text, doc, none), null, text);
  }
  assert.deepEqual(parsePlace('.a.b', doc, none), ['a', 'b']);
  assert.deepEqual(parsePlace(' .a .b ', doc, none), ['a', 'b'], 'spaces between segments');
});

test('a quoted name is read as JSON, whatever it holds', () => {
  const name = 'a"b\\c\n<img src=x onerror=alert(1)>';
  const doc = { [name]: true };
  assert.deepEqual(parsePlace(`[${JSON.stringify(name)}]`, doc, () => undefined), [name]);
});
