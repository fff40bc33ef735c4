// What the tree shows of a value of the readable JSON: whether it is one row or a container, its
// children and their paths, a leaf's text, a closed container's preview, and how a container's
// children are cut into pages.
//
// Pure: no DOM, no globals; node imports it as the browser does.

import {
  BASE64_KEYS, COLLECTION_KEYS, KEY, OBJECT_HEADER_KEYS, isCollectionObject, isMarkerKey, isObject, memberName,
  startsLikeMarker,
} from './mapping.mjs';
import { base64Length, clip, countText, plural } from './format.mjs';
import { kindText, writtenKind } from './data-kind.mjs';

/// Children rendered at a time (a page); the rest wait behind "show" rows.
export const PAGE_SIZE = 200;

/// Whether `v` is shown as one row without children: scalars, references, and wrapper objects
/// whose members are all markers with scalar values (`{"$date": …}`, `{"$data": "…"}`), a data
/// value's `$kind` aside (its row says the kind: `leafText`).
export function isLeaf(v) {
  if (!isObject(v)) return !Array.isArray(v);
  if (KEY.ref in v) return true;
  if (KEY.class in v) return false;
  const keys = Object.keys(v).filter((k) => k !== KEY.kind);
  return keys.length > 0 && keys.every((k) => isMarkerKey(k) && k !== KEY.id && (v[k] === null || typeof v[k] !== 'object'));
}

/// The children of a container: `[{segs, label, value, container, slot}]`, where `segs` is the
/// path from the container, `label` what the row says, and `container[slot]` the value. A
/// collection object's items are its direct children (`[i]`), their paths kept exact
/// (`["$array", i]`); an escaped member is labelled with its own name.
export function childrenOf(v) {
  const out = [];
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) out.push({ segs: [i], label: `[${i}]`, value: v[i], container: v, slot: i });
    return out;
  }
  for (const key of Object.keys(v)) {
    if (OBJECT_HEADER_KEYS.includes(key)) continue;
    const member = v[key];
    if (COLLECTION_KEYS.includes(key) && Array.isArray(member)) {
      for (let i = 0; i < member.length; i++) {
        out.push({ segs: [key, i], label: `[${i}]`, value: member[i], container: member, slot: i });
      }
    } else {
      out.push({ segs: [key], label: memberName(key), value: member, container: v, slot: key });
    }
  }
  return out;
}

/// How many children `childrenOf(v)` gives, without making them.
export function childCount(v) {
  if (Array.isArray(v)) return v.length;
  let n = 0;
  for (const key of Object.keys(v)) {
    if (OBJECT_HEADER_KEYS.includes(key)) continue;
    n += COLLECTION_KEYS.includes(key) && Array.isArray(v[key]) ? v[key].length : 1;
  }
  return n;
}

/// A container's size as its row shows it: `[n]` for a list, `{n}` for an object.
export function sizeText(v) {
  const n = countText(childCount(v));
  return Array.isArray(v) || isCollectionObject(v) ? `[${n}]` : `{${n}}`;
}

/// The text of a leaf that is not a reference, and its kind (a CSS class): strings quoted as JSON
/// and clipped, wrapped numbers as numbers, other wrappers named.
export function leafText(v) {
  if (v === null) return ['null', 'null'];
  if (typeof v === 'string') return [JSON.stringify(clip(v)), 'string'];
  if (typeof v === 'number') return [String(v), 'number'];
  if (typeof v === 'boolean') return [String(v), 'boolean'];
  if (KEY.real in v) return [String(v[KEY.real]), 'number'];
  if (KEY.integer in v) return [String(v[KEY.integer]), 'number'];
  if (KEY.date in v) return [`date ${v[KEY.date]}`, 'other'];
  if (KEY.uuid in v) return [`uuid ${v[KEY.uuid]}`, 'other'];
  if (KEY.attributesOf in v) return [`length ${v[KEY.length]} · the attributes of run [${v[KEY.attributesOf]}]`, 'other'];
  if (KEY.text in v) return [JSON.stringify(clip(String(v[KEY.text]))), 'string'];
  if (KEY.bytesText in v) return [JSON.stringify(clip(String(v[KEY.bytesText]))), 'string'];
  for (const marker of BASE64_KEYS) {
    if (typeof v[marker] === 'string') {
      // A kind the service named stands in for the base64's first characters: the row stays
      // as short as before, so that an image's thumbnail after it is still in view.
      const kind = writtenKind(v[KEY.kind]);
      const said = kind ? kindText(kind) : clip(v[marker], 48);
      return [`${marker.slice(1)} · ${plural(base64Length(v[marker]), 'byte')} · ${said}`, 'other'];
    }
  }
  return [clip(JSON.stringify(v)), 'other'];
}

/// A closed object's first three scalar members (`name="Ann" age=3`), so its row says what it is
/// before it is opened; '' for anything else.
export function previewOf(v) {
  if (!isObject(v)) return '';
  const parts = [];
  for (const key of Object.keys(v)) {
    if (startsLikeMarker(key)) continue;
    const member = v[key];
    if (member === null || typeof member !== 'object') {
      parts.push(`${key}=${typeof member === 'string' ? JSON.stringify(clip(member, 30)) : String(member)}`);
      if (parts.length === 3) break;
    }
  }
  return parts.join(' ');
}

/// The colour a `$hex` member's row shows as a swatch: the value when it is exactly `#rrggbb`,
/// else null (nothing else may reach the style).
export const swatchColour = (label, v) => (label === KEY.hex && typeof v === 'string' && /^#[0-9A-Fa-f]{6}$/.test(v) ? v : null);

/// Nodes in `doc` (every value, containers and scalars), counted up to `limit`.
export function nodeCount(doc, limit) {
  const stack = [doc];
  let n = 0;
  while (stack.length && n < limit) {
    const v = stack.pop();
    n++;
    if (v !== null && typeof v === 'object') for (const k in v) stack.push(v[k]);
  }
  return n;
}

/// The index in `entries` (a container's `childrenOf`) of the child that `segs[i…]` leads to, or
/// -1. A collection object's item is found by the collection's key and the item's index.
export function entryIndex(value, entries, segs, i) {
  const seg = segs[i];
  if (Array.isArray(value)) return typeof seg === 'number' && seg < entries.length ? seg : -1;
  const j = entries.findIndex((e) => e.segs[0] === seg);
  if (j < 0 || entries[j].segs.length === 1) return j;
  const index = segs[i + 1];
  return typeof index === 'number' && j + index < entries.length && entries[j + index].segs[1] === index ? j + index : -1;
}

/// Pages of `count` children.
export const pageCount = (count) => Math.ceil(count / PAGE_SIZE);

/// The "show" row standing for the pages `from` up to `to` (not included) of `count` children:
/// the page a click shows (`shows`: the last of the gap when it is above every shown page, else
/// its first) and the row's text. Null when the range is empty.
export function gapOf(count, from, to) {
  if (from >= to) return null;
  const shows = from === 0 && to < pageCount(count) ? to - 1 : from;
  const first = from * PAGE_SIZE;
  const last = Math.min(count, to * PAGE_SIZE) - 1;
  const showFirst = shows * PAGE_SIZE;
  const showLast = Math.min(count, (shows + 1) * PAGE_SIZE) - 1;
  const hidden = last - first + 1;
  const text = hidden === showLast - showFirst + 1
    ? `show [${showFirst}]…[${showLast}]`
    : `show [${showFirst}]…[${showLast}] (${countText(hidden)} not shown: [${first}]…[${last}])`;
  return { from, to, shows, text };
}
