// The index of a document's `$id`s and `$ref`s: where each numbered object is, and every place
// that refers to it.
//
// `$id`s are numbered per document: a payload decoded in place (`nested=1`) has its own, so the
// index keys each by the payload it is in (its scope, the path of the payload's key).
//
// Pure of the DOM: the walk runs in slices (slices.mjs), which node runs too.

import { KEY, PAYLOAD_KEYS, isObject } from './mapping.mjs';
import { pathKey } from './paths.mjs';
import { sliceClock } from './slices.mjs';

/// The scope of the place at `segs`: the path of the innermost payload it is in, '' for the
/// document itself. The root's own members are never a payload (a document whose root is a
/// `$typedstream` is one typedstream, not one inside another).
export function scopeOf(segs) {
  for (let i = segs.length - 1; i > 0; i--) {
    if (PAYLOAD_KEYS.includes(segs[i])) return pathKey(segs.slice(0, i + 1));
  }
  return '';
}

/// The index's key of the object `id` in `scope`.
export const idKey = (scope, id) => `${scope}#${id}`;

/// A document with its index: `ids` (scoped `$id` → path), `refs` (scoped `$id` → the paths of
/// the `{"$ref": n}` that point at it), `ready` once built, and `indexed`, the promise of it. The
/// index is built in slices paced by `clock` (a new `sliceClock()` unless given): the first
/// before this returns, the others after. `text` is the JSON text the document was read from, or
/// null.
export function makeView(doc, text, clock = sliceClock()) {
  const view = { doc, text, ids: new Map(), refs: new Map(), ready: false };
  view.indexed = indexDocument(view, clock);
  return view;
}

/// Where the object `id`, referred to from `segs`, is: its path, or undefined.
export const targetOf = (view, segs, id) => view.ids.get(idKey(scopeOf(segs), id));
/// The paths of the references to the object `id` in the scope of `segs` (none: an empty list).
export const referrersOf = (view, segs, id) => view.refs.get(idKey(scopeOf(segs), id)) || [];

/// Walks `view.doc` without recursion (a document may nest deeper than the stack), recording
/// every `$id` and `$ref` in `view.ids` and `view.refs`.
async function indexDocument(view, clock) {
  const stack = [[view.doc, [], '']];
  while (stack.length) {
    const [value, segs, scope] = stack.pop();
    if (isObject(value)) {
      if (KEY.ref in value && typeof value[KEY.ref] === 'number') {
        const key = idKey(scope, value[KEY.ref]);
        const list = view.refs.get(key);
        if (list) list.push(segs);
        else view.refs.set(key, [segs]);
        continue;
      }
      if (typeof value[KEY.id] === 'number') view.ids.set(idKey(scope, value[KEY.id]), segs);
      for (const key in value) {
        const member = value[key];
        if (member === null || typeof member !== 'object') continue;
        const inner = segs.concat(key);
        stack.push([member, inner, segs.length > 0 && PAYLOAD_KEYS.includes(key) ? pathKey(inner) : scope]);
      }
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        const member = value[i];
        if (member !== null && typeof member === 'object') stack.push([member, segs.concat(i), scope]);
      }
    }
    if (clock.due()) await clock.next();
  }
  view.ready = true;
}
