import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  MAX_MATCHES, classLabel, classMatcher, collectMatches, finalCountText, positionText, pushChildren, queryLabel, runningCountText,
  textMatcher, withoutPosition,
} from '../../Sources/ArchiveServer/Resources/page/search.mjs';

const neverDue = { due: () => false, next: async () => {} };

/// A clock due after every step, counting its yields.
function everyStep() {
  const clock = { yields: 0, due: () => true, next: async () => { clock.yields++; } };
  return clock;
}

async function find(doc, step, options = {}) {
  const matches = [];
  const done = await collectMatches(doc, step, matches, { clock: neverDue, ...options });
  return { matches, done };
}

const league = {
  $class: 'League',
  name: 'North League',
  teams: {
    $class: 'NSArray',
    $array: [
      { $class: 'Team', $id: 2, name: 'Northwind', founded: { $date: '1901-01-01T00:00:00Z' }, motto: { $class: 'NSString', $string: 'north!' } },
      { $class: 'Team', $id: 3, name: 'South', rival: { $ref: 2 }, $$northKey: 'x', North: 1 },
    ],
  },
};

test('pushChildren gives children back in document order', () => {
  const stack = [];
  pushChildren({ a: 1, b: [2, 3], c: null }, ['root'], stack);
  assert.deepEqual(stack.reverse().map(([, segs]) => segs), [['root', 'a'], ['root', 'b'], ['root', 'c']]);
  const list = [];
  pushChildren(['x', 'y'], [], list);
  assert.deepEqual(list.pop(), ['x', [0]]);
  const none = [];
  pushChildren('scalar', [], none);
  pushChildren(null, [], none);
  assert.deepEqual(none, []);
});

test('text search: values, keys and class names, any case, in document order', async () => {
  const { matches, done } = await find(league, textMatcher('  NORTH '));
  assert.ok(done);
  assert.deepEqual(matches, [
    ['name'],
    ['teams', '$array', 0, 'name'],
    ['teams', '$array', 0, 'motto', '$string'], // a string object's string is the value itself
    ['teams', '$array', 1, 'North'], // a key
  ]);
  const classes = await find(league, textMatcher('team'));
  // A class name is found at the object that has it; the key `teams` by its name.
  assert.deepEqual(classes.matches, [['teams'], ['teams', '$array', 0], ['teams', '$array', 1]]);
  const dates = await find(league, textMatcher('1901'));
  assert.deepEqual(dates.matches, [['teams', '$array', 0, 'founded']]);
});

test('text search reads scalars as text: numbers, booleans, null', async () => {
  const doc = { a: 12345, b: true, c: null, d: [false] };
  assert.deepEqual((await find(doc, textMatcher('234'))).matches, [['a']]);
  assert.deepEqual((await find(doc, textMatcher('null'))).matches, [['c']]);
  assert.deepEqual((await find(doc, textMatcher('fal'))).matches, [['d', 0]]);
});

test('markup in a query is text to find', async () => {
  const doc = { '<b>': '<script>alert(1)</script>', x: 'plain' };
  assert.deepEqual((await find(doc, textMatcher('<SCRIPT>'))).matches, [['<b>']]);
  assert.deepEqual((await find(doc, textMatcher('<b>'))).matches, [['<b>']]);
  assert.deepEqual((await find(doc, textMatcher('.*'))).matches, [], 'not a pattern');
});

test('an empty query searches nothing', () => {
  assert.equal(textMatcher(''), null);
  assert.equal(textMatcher('   '), null);
});

test('class filter: bodies of the class, not references to them', async () => {
  const { matches } = await find(league, classMatcher('Team'));
  assert.deepEqual(matches, [['teams', '$array', 0], ['teams', '$array', 1]]);
  const refs = { a: { $class: 'Team', $ref: 2 }, b: [{ $class: 'Team' }] };
  assert.deepEqual((await find(refs, classMatcher('Team'))).matches, [['b', 0]]);
  assert.deepEqual((await find(league, classMatcher('team'))).matches, [], 'exact name');
});

test('the walk stops at its limit', async () => {
  const doc = Array.from({ length: 50 }, () => 'hit');
  const { matches, done } = await find(doc, textMatcher('hit'), { limit: 10 });
  assert.ok(done);
  assert.equal(matches.length, 10);
  assert.equal(MAX_MATCHES, 10000);
});

test('between slices the walk reports, and stops when no longer wanted', async () => {
  const doc = Array.from({ length: 20 }, (_, i) => `item ${i}`);
  const clock = everyStep();
  const seen = [];
  let wanted = 5;
  const matches = [];
  const done = await collectMatches(doc, textMatcher('item'), matches, {
    clock,
    onPause: (found) => seen.push(found.length),
    stillWanted: () => --wanted > 0,
  });
  assert.equal(done, false);
  assert.equal(clock.yields, 5);
  assert.deepEqual(seen, [0, 1, 2, 3, 4], 'the matches so far, the same array as the caller\'s');
  assert.equal(matches.length, 4);
});

test('a deep document is walked without recursion', async () => {
  let doc = 'needle';
  for (let i = 0; i < 20000; i++) doc = [doc];
  const { matches } = await find(doc, textMatcher('needle'));
  assert.equal(matches.length, 1);
  assert.equal(matches[0].length, 20000);
});

test('count texts', () => {
  assert.equal(queryLabel('north'), '“north”');
  assert.equal(queryLabel('x'.repeat(40)), `“${'x'.repeat(30)}…”`);
  assert.equal(classLabel('NSArray'), 'class NSArray');
  assert.equal(runningCountText('“a”', 1234), '“a”: 1,234 so far…');
  assert.equal(finalCountText('“a”', 0, -1), '“a”: no match');
  assert.equal(finalCountText('class X', 0, -1, { byClass: true }),
    'class X: no match (its objects read as plain JSON values here, without "$class"; Raw shows every object)');
  assert.equal(finalCountText('“a”', 1204, 0), '1 of 1,204 (“a”)');
  assert.equal(finalCountText('“a”', 10000, 2), '3 of 10,000+ (“a”)');
  assert.equal(finalCountText('“a”', 5, 0, { limit: 5 }), '1 of 5+ (“a”)');
  assert.equal(positionText(4, '1,204 (“a”)'), '5 of 1,204 (“a”)');
  assert.equal(withoutPosition('12 of 1,204 (“a”)'), '1,204 (“a”)');
  assert.equal(withoutPosition('1,000 of 10,000+ (“2 of 3”)'), '10,000+ (“2 of 3”)');
  assert.equal(withoutPosition('“a”: 5 so far…'), '“a”: 5 so far…');
});
