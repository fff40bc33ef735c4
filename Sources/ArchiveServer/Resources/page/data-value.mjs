// Data values of the readable JSON as the data panel and the thumbnails read them: which values
// hold bytes (`{"$data": base64}`, `{"$bytes": base64}`, or text the service found in them,
// `$text`, `$bytesText`), the kind the service wrote beside them (`$kind`, which says what the
// bytes are and is never their content), their bytes decoded a slice at a time, and the name a
// saved copy takes.
//
// Pure: no DOM, no globals but TextEncoder, which the browser and node both have; node imports it
// as the browser does.
/* global TextEncoder */

import { BASE64_KEYS, KEY, isMarkerKey, isObject } from './mapping.mjs';
import { base64Length } from './format.mjs';

/// Wrappers of bytes that are UTF-8 text, written as that text.
const TEXT_KEYS = [KEY.text, KEY.bytesText];

/// The bytes of each byte order mark `$bom` names.
const MARKS = Object.freeze({ utf8: [0xef, 0xbb, 0xbf] });

/// The bytes of a text data value (`{marker, text, bom?}` from `dataOf`): its mark's, then its
/// text's UTF-8, as the codec writes them back. Throws on a mark this page does not know.
export function textBytes(data) {
  const text = new TextEncoder().encode(data.text);
  if (data.bom === undefined) return text;
  if (!Object.hasOwn(MARKS, data.bom)) throw new Error(`unknown byte order mark ${JSON.stringify(data.bom)}`);
  const bytes = new Uint8Array(MARKS[data.bom].length + text.length);
  bytes.set(MARKS[data.bom]);
  bytes.set(text, MARKS[data.bom].length);
  return bytes;
}

/// The bytes `v` holds, when it is a data value: `{marker, base64}` for base64 (with `kind`, the
/// `$kind` member beside it, when the service wrote one), `{marker, text}` for bytes that are
/// UTF-8 text (with `bom`, the `$bom` member's name, when a byte order mark stands before it);
/// null for anything else (a nested document in a data value is a document, not
/// bytes). `slot` is where `v` is in its container: a string in a wrapper's own slot (an
/// NSMutableData's `$data` member) is the wrapper's bytes.
export function dataOf(v, slot = null) {
  if (typeof v === 'string') {
    if (BASE64_KEYS.includes(slot)) return { marker: slot, base64: v };
    if (TEXT_KEYS.includes(slot)) return { marker: slot, text: v };
    return null;
  }
  if (!isObject(v)) return null;
  for (const marker of BASE64_KEYS) {
    if (typeof v[marker] !== 'string') continue;
    return isObject(v[KEY.kind]) ? { marker, base64: v[marker], kind: v[KEY.kind] } : { marker, base64: v[marker] };
  }
  for (const marker of TEXT_KEYS) {
    if (typeof v[marker] !== 'string') continue;
    return typeof v[KEY.bom] === 'string' ? { marker, text: v[marker], bom: v[KEY.bom] } : { marker, text: v[marker] };
  }
  return null;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SEXTET = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) SEXTET[ALPHABET.charCodeAt(i)] = i;

/// Bytes `from` up to `to` (not included, clamped to the value's end) of the base64 text `text`,
/// decoding only the characters that hold them: a page of a 50 MB value reads 5,464 characters.
/// Throws on a character that is not base64.
export function base64Slice(text, from = 0, to = Infinity) {
  const length = base64Length(text);
  from = Math.max(0, from);
  const end = Math.min(to, length);
  if (end <= from) return new Uint8Array(0);
  const first = Math.floor(from / 3);
  const last = Math.ceil(end / 3);
  const out = new Uint8Array((last - first) * 3);
  let n = 0;
  for (let group = first; group < last; group++) {
    let bits = 0;
    let have = 0;
    for (let k = 0; k < 4; k++) {
      const at = group * 4 + k;
      const code = at < text.length ? text.charCodeAt(at) : 61;
      if (code === 61) break; // '=' or the end: the group's bytes so far
      const sextet = code < 128 ? SEXTET[code] : -1;
      if (sextet < 0) throw new Error(`not base64 at character ${at}`);
      bits = (bits << 6) | sextet;
      have++;
    }
    bits <<= 6 * (4 - have);
    out[n++] = (bits >> 16) & 0xff;
    out[n++] = (bits >> 8) & 0xff;
    out[n++] = bits & 0xff;
  }
  const skip = from - first * 3;
  return out.subarray(skip, skip + (end - from));
}

/// Characters a saved file's name keeps of a key.
const NAME_CHARS = 80;

/// The name a value's saved bytes take: the nearest key of the value or its containers that is a
/// member's name (`image`), with the indexes met on the way (`photos-3`), cut to what a file name
/// may hold; `data` when there is none. `labels` go from the value up to the root (`[3]`,
/// `photos`, …), `extension` is the kind's ('' for none).
export function saveName(labels, extension) {
  const indexes = [];
  let base = 'data';
  for (const label of labels) {
    if (typeof label !== 'string') continue;
    const index = /^\[(\d+)\]$/.exec(label);
    if (index) {
      indexes.unshift(index[1]);
      continue;
    }
    if (isMarkerKey(label)) continue;
    const clean = label.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+|[._]+$/g, '').slice(0, NAME_CHARS);
    if (clean) {
      base = clean;
      break;
    }
  }
  const name = [base].concat(indexes).join('-');
  return extension ? `${name}.${extension}` : name;
}
