import { test } from 'node:test';
import assert from 'node:assert/strict';

import { SLICE_MS, nextTask, sliceClock } from '../../Sources/ArchiveServer/Resources/page/slices.mjs';

test('a slice is due every 256 steps once its time is spent', async () => {
  let now = 1000;
  let yields = 0;
  const clock = sliceClock({ now: () => now, yieldTask: async () => { yields++; } });
  for (let i = 1; i < 256; i++) assert.equal(clock.due(), false);
  assert.equal(clock.due(), false, 'step 256 within the slice');
  now += SLICE_MS + 1;
  for (let i = 1; i < 256; i++) assert.equal(clock.due(), false, 'the clock is read every 256 steps only');
  assert.equal(clock.due(), true);
  await clock.next();
  assert.equal(yields, 1);
  for (let i = 1; i < 256; i++) clock.due();
  assert.equal(clock.due(), false, 'a new slice starts after the yield');
  now += SLICE_MS + 1;
  for (let i = 1; i < 256; i++) clock.due();
  assert.equal(clock.due(), true);
});

test('the slice length is a parameter', () => {
  let now = 0;
  const clock = sliceClock({ sliceMs: 0, now: () => now });
  now = 1;
  for (let i = 1; i < 256; i++) clock.due();
  assert.equal(clock.due(), true);
});

test('nextTask resolves after pending tasks, and keeps nothing open', async () => {
  const order = [];
  setImmediate(() => order.push('immediate'));
  await nextTask();
  order.push('next');
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(order.includes('next'));
  // With the real clock: a slice of a few milliseconds, then a yield.
  const clock = sliceClock();
  const started = performance.now();
  let steps = 0;
  while (!clock.due()) steps++;
  assert.ok(performance.now() - started >= SLICE_MS, `${steps} steps`);
  await clock.next();
});
