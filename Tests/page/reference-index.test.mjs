import { test } from 'node:test';
import assert from 'node:assert/strict';

import { idKey, makeView, referrersOf, scopeOf, targetOf } from '../../Sources/ArchiveServer/Resources/page/reference-index.mjs';

/// A clock that yields after every `every` steps, counting its yields.
function countingClock(every = 1) {
  let steps = 0;
  const clock = {
    yields: 0,
    due: () => ++steps % every === 0,
    async next() {
      clock.yields++;
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
  return clock;
}

const league = () => ({
  $class: 'League',
  $id: 0,
  teams: {
    $class: 'NSArray',
    $id: 1,
    $array: [
      { $class: 'Team', $id: 2, name: 'A', league: { $ref: 0 } },
      { $class: 'Team', $id: 3, name: 'B', league: { $ref: 0 }, rival: { $ref: 2 } },
    ],
  },
  captain: { $ref: 2 },
});

test('ids and the references to them', async () => {
  const view = makeView(league(), null, countingClock(1));
  assert.equal(view.ready, false, 'only the first slice runs before makeView returns');
  await view.indexed;
  assert.equal(view.ready, true);
  assert.deepEqual(targetOf(view, [], 2), ['teams', '$array', 0]);
  assert.deepEqual(targetOf(view, ['captain'], 3), ['teams', '$array', 1]);
  assert.equal(targetOf(view, [], 9), undefined);
  const toTeamA = referrersOf(view, [], 2).map((segs) => JSON.stringify(segs)).sort();
  assert.deepEqual(toTeamA, [JSON.stringify(['captain']), JSON.stringify(['teams', '$array', 1, 'rival'])]);
  assert.equal(referrersOf(view, [], 0).length, 2);
  assert.deepEqual(referrersOf(view, [], 3), []);
});

test('a payload decoded in place numbers its objects apart', async () => {
  const doc = {
    $class: 'Holder', $id: 1, self: { $ref: 1 },
    blob: { $keyedArchive: { $class: 'Inner', $id: 1, back: { $ref: 1 }, deeper: { $typedstream: { $id: 1, me: { $ref: 1 } } } } },
  };
  const view = makeView(doc, null, countingClock(1000));
  await view.indexed;
  assert.deepEqual(targetOf(view, ['self'], 1), []);
  assert.deepEqual(targetOf(view, ['blob', '$keyedArchive', 'back'], 1), ['blob', '$keyedArchive']);
  assert.deepEqual(targetOf(view, ['blob', '$keyedArchive', 'deeper', '$typedstream', 'me'], 1), ['blob', '$keyedArchive', 'deeper', '$typedstream']);
  assert.deepEqual(referrersOf(view, [], 1), [['self']]);
  assert.deepEqual(referrersOf(view, ['blob', '$keyedArchive'], 1), [['blob', '$keyedArchive', 'back']]);
});

test('the root\'s own payload key is the document, not a payload in it', async () => {
  assert.equal(scopeOf(['$typedstream', 'x']), '');
  assert.equal(scopeOf([]), '');
  assert.equal(scopeOf(['a', '$propertyList', 'b', 0]), JSON.stringify(['a', '$propertyList']));
  assert.equal(scopeOf(['a', '$keyedArchive', 'b', '$typedstream']), JSON.stringify(['a', '$keyedArchive', 'b', '$typedstream']));
  const view = makeView({ $typedstream: { $id: 4, loop: { $ref: 4 } } }, null, countingClock(1000));
  await view.indexed;
  assert.deepEqual(targetOf(view, ['$typedstream', 'loop'], 4), ['$typedstream']);
});

test('the same number in two scopes is two keys', () => {
  assert.notEqual(idKey(scopeOf(['a', '$keyedArchive', 'x']), 1), idKey(scopeOf(['x']), 1));
  assert.notEqual(idKey('', 12), idKey('', 1));
});

test('what is not a numbered reference is walked as data', async () => {
  const doc = { odd: { $ref: 'two', child: { $id: 5 } }, list: [null, 1, { $ref: 5 }], $$ref: { $id: 6 } };
  const view = makeView(doc, null, countingClock(1000));
  await view.indexed;
  assert.deepEqual(targetOf(view, [], 5), ['odd', 'child']);
  assert.deepEqual(targetOf(view, [], 6), ['$$ref']);
  assert.deepEqual(referrersOf(view, [], 5), [['list', 2]]);
  assert.equal(view.refs.size, 1, 'a string $ref is no reference');
});

test('the walk yields between slices, nested or wide', async () => {
  let doc = { $id: 0, end: true };
  const depth = 3000;
  for (let i = 1; i <= depth; i++) doc = { $id: i, next: doc, back: { $ref: i - 1 } };
  const clock = countingClock(100);
  const view = makeView(doc, null, clock);
  await view.indexed;
  // A step per object (a reference ends its step before the clock is asked).
  assert.equal(clock.yields, Math.floor((depth + 1) / 100));
  assert.equal(view.ids.size, depth + 1);
  assert.equal(targetOf(view, [], 0).length, depth);
  assert.equal(referrersOf(view, [], 0)[0].length, depth);

  const wide = makeView({ list: Array.from({ length: 10000 }, (_, i) => ({ $id: i })) }, null, countingClock(100));
  // The root and the list are a step each, the first slice's 98 others the first ids.
  assert.equal(wide.ids.size, 98);
  await wide.indexed;
  assert.equal(wide.ids.size, 10000);
  assert.deepEqual(targetOf(wide, [], 9999), ['list', 9999]);
});

test('the default clock paces the walk and lets the process end', async () => {
  const items = Array.from({ length: 5000 }, (_, i) => ({ $id: i, next: { $ref: (i + 1) % 5000 } }));
  const view = makeView({ items }, 'text');
  assert.equal(view.text, 'text');
  await view.indexed;
  assert.equal(view.ids.size, 5000);
  assert.deepEqual(referrersOf(view, [], 0), [['items', 4999, 'next']]);
});
