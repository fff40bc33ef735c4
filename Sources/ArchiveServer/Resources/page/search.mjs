// Finding places in a document: by text (keys, values, class names) and by class, walked in
// slices so a large document never freezes the page, with the texts that report the count.
//
// Pure of the DOM: the walk runs in slices (slices.mjs), which node runs too.

import { KEY, isFormatSlot, isObject, startsLikeMarker } from './mapping.mjs';
import { clip, countText } from './format.mjs';

/// Matches collected at most; past it the count says `10,000+`.
export const MAX_MATCHES = 10000;

/// Pushes `value`'s children for the walk, so that they are popped in document order.
export function pushChildren(value, segs, stack) {
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], segs.concat(i)]);
  } else if (isObject(value)) {
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) stack.push([value[keys[i]], segs.concat(keys[i])]);
  }
}

/// The step of a walk that finds `query` (trimmed, any case) in scalar values and in the names of
/// members, or null for a query of only spaces. A marker's value (a class name, a date) is found
/// at the object that holds it; marker and escaped keys are not searched by name.
export function textMatcher(query) {
  const q = query.trim().toLowerCase();
  if (!q) return null;
  return (value, segs, matches, stack) => {
    if (value === null || typeof value !== 'object') {
      if (String(value).toLowerCase().includes(q)) {
        matches.push(isFormatSlot(segs[segs.length - 1]) ? segs.slice(0, -1) : segs);
      }
      return;
    }
    if (isObject(value)) {
      for (const key of Object.keys(value)) {
        if (!startsLikeMarker(key) && key.toLowerCase().includes(q)) matches.push(segs.concat(key));
      }
    }
    pushChildren(value, segs, stack);
  };
}

/// The step of a walk that finds the objects of class `name` (their bodies, not references).
export function classMatcher(name) {
  return (value, segs, matches, stack) => {
    if (isObject(value) && value[KEY.class] === name && !(KEY.ref in value)) matches.push(segs);
    if (value !== null && typeof value === 'object') pushChildren(value, segs, stack);
  };
}

/// Walks `doc` with `step(value, segs, matches, stack)`, collecting paths into `matches` (the
/// caller's array, so what is found shows as it is found) until the document is done or `limit`
/// paths are in. Between slices of `clock` it calls `onPause(matches)` and, after the yield,
/// `stillWanted()`: false stops the walk. Resolves true when the walk ran to its end, false when
/// it was stopped.
export async function collectMatches(doc, step, matches, { clock, limit = MAX_MATCHES, onPause = () => {}, stillWanted = () => true }) {
  const stack = [[doc, []]];
  while (stack.length && matches.length < limit) {
    const [value, segs] = stack.pop();
    step(value, segs, matches, stack);
    if (clock.due()) {
      onPause(matches);
      await clock.next();
      if (!stillWanted()) return false;
    }
  }
  return true;
}

/// What a text search is called in its count: the query, clipped, in quotes.
export const queryLabel = (query) => `“${clip(query, 30)}”`;
/// What a class filter is called in its count.
export const classLabel = (name) => `class ${name}`;

/// The count while a walk runs.
export const runningCountText = (label, found) => `${label}: ${countText(found)} so far…`;

/// The count once a walk is done: where the shown match is among them (`3 of 1,204 (label)`,
/// `+` when the walk stopped at its limit), or that nothing matched; a class filter that finds
/// nothing says why it may not.
export function finalCountText(label, found, at, { limit = MAX_MATCHES, byClass = false } = {}) {
  if (!found) {
    return `${label}: no match${byClass ? ' (its objects read as plain JSON values here, without "' + KEY.class + '"; Raw shows every object)' : ''}`;
  }
  return positionText(at, `${countText(found)}${found >= limit ? '+' : ''} (${label})`);
}

/// The count after a step to the match at `at` (from 0): `at + 1 of ` and the rest of the count.
export const positionText = (at, rest) => `${at + 1} of ${rest}`;

/// A count's text without its position (`1,204 (label)` of `3 of 1,204 (label)`).
export const withoutPosition = (text) => text.replace(/^[\d,]+ of /, '');
