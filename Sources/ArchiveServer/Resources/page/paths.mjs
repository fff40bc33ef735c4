// Paths into a document: as a list of segments (member names and array indexes), as jq reads
// them, and as the service names places (`archive-tool compare`, the summary's `path`).
//
// Pure: no DOM, no globals; node imports it as the browser does.

import { PLACE_ID_PREFIX } from './mapping.mjs';

/// A path as jq reads it: `.teams."$array"[0].name`; `.` for the root. A member whose name is
/// not a plain identifier is quoted as a JSON string, so any name (quotes, dots, spaces,
/// newlines) reads back as itself.
export function jqPath(segs) {
  if (segs.length === 0) return '.';
  let out = '';
  for (const s of segs) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) out += '.' + s;
    else out += '.' + JSON.stringify(s);
  }
  return out;
}

/// A path as a string, one per path: the key of a path in a Map.
export const pathKey = (segs) => JSON.stringify(segs);

/// The value at `segs` in `doc`, or undefined when the path leads nowhere.
export function valueAt(doc, segs) {
  let v = doc;
  for (const s of segs) v = v == null ? undefined : v[s];
  return v;
}

/// The path of a place as the service names it: `.teams.$array[0].name`, `$id 47 .home.name`,
/// `["odd key"]`, `.` for the root. `$id n` starts again at that object, found by
/// `resolveId(segsSoFar, n)` (the reference index's, in the payload the path has entered).
/// Null when the text is not such a path (or has its middle left out) or leads nowhere in `doc`.
export function parsePlace(text, doc, resolveId) {
  let segs = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ') {
      i++;
    } else if (text.startsWith(PLACE_ID_PREFIX, i)) {
      const m = /^\d+/.exec(text.slice(i + PLACE_ID_PREFIX.length));
      if (!m) return null;
      const at = resolveId(segs, Number(m[0]));
      if (!at) return null;
      segs = at.slice();
      i += PLACE_ID_PREFIX.length + m[0].length;
    } else if (c === '.') {
      const m = /^\.([A-Za-z0-9_$@]+)/.exec(text.slice(i));
      if (m) {
        segs.push(m[1]);
        i += m[0].length;
      } else {
        i++;
      }
    } else if (c === '[') {
      const index = /^\[(\d+)\]/.exec(text.slice(i));
      if (index) {
        segs.push(Number(index[1]));
        i += index[0].length;
        continue;
      }
      const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(text.slice(i));
      if (!quoted) return null;
      let name;
      try {
        name = JSON.parse(quoted[1]);
      } catch (_) {
        return null; // not a JSON string: an escape JSON does not have, a raw control character
      }
      segs.push(name);
      i += quoted[0].length;
    } else {
      return null;
    }
  }
  return valueAt(doc, segs) === undefined ? null : segs;
}
