// Editing a scalar of the readable JSON: which values can be edited and how, reading a person's
// text back as a value of the same type, the rule for an attributed string's text, and writing
// the new value into the document.
//
// Pure: no DOM, no globals; node imports it as the browser does.

import { KEY, TEXT_WRAPPER_KEYS, isFormatSlot, isObject } from './mapping.mjs';

/// How an edit of `v` is read back ('string', 'boolean', 'integer', 'real', 'date', or a text
/// wrapper's key), or null when it cannot be edited here.
export function editKind(v) {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'real';
  if (isObject(v)) {
    const keys = Object.keys(v);
    if (keys.length !== 1) return null;
    if (keys[0] === KEY.real) return 'real';
    if (keys[0] === KEY.integer) return 'integer';
    if (keys[0] === KEY.date && typeof v[KEY.date] === 'string') return 'date';
    if (TEXT_WRAPPER_KEYS.includes(keys[0]) && typeof v[keys[0]] === 'string') return keys[0];
  }
  return null;
}

/// The text an editor starts with for `v`: the value, or a wrapper's one member.
export const editorText = (v) => (v !== null && typeof v === 'object' ? String(Object.values(v)[0]) : String(v));

/// Reads `text` as a new value of `kind`, keeping the value's type (a real stays a real even when
/// it has no fraction, an integer too large for a double is written as text); throws an Error
/// whose message a person can act on.
export function parseEdit(kind, text) {
  const t = text.trim();
  switch (kind) {
    case 'string':
      return text;
    case 'boolean':
      if (t === 'true' || t === 'false') return t === 'true';
      throw new Error('A boolean is true or false.');
    case 'integer': {
      if (!/^-?(0|[1-9][0-9]*)$/.test(t)) throw new Error('This value is an integer: digits, with a minus sign for a negative one.');
      const n = Number(t);
      return Number.isSafeInteger(n) ? n : { [KEY.integer]: t };
    }
    case 'real': {
      if (/^-?(nan|inf|infinity)$/i.test(t)) return { [KEY.real]: t.toLowerCase().replace('infinity', 'inf') };
      if (!/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(t)) throw new Error('This value is a real number, such as 2.5 or -1e-3.');
      const n = Number(t);
      if (!Number.isFinite(n)) throw new Error('This real is out of range.');
      return Number.isInteger(n) || Object.is(n, -0) ? { [KEY.real]: /[.eE]/.test(t) ? t : t + '.0' } : n;
    }
    case 'date':
      if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$/.test(t)) {
        throw new Error('A date is written 2024-05-17T09:30:00Z (UTC).');
      }
      return { [KEY.date]: t };
    default:
      if (TEXT_WRAPPER_KEYS.includes(kind)) return { [kind]: text };
      throw new Error('This value cannot be edited here.');
  }
}

/// An attributed string's text (its `$string`, or the `$string` of the string object there) is
/// cut into runs by UTF-16 length: an edit may change the characters, not the length. `node` is
/// the edited place as `{slot, value, parent}` (parent: the same for the container, or null);
/// throws an Error saying so when `after` would change the length `before` has.
export function checkRunLengths(node, before, after) {
  if (node.slot !== KEY.string) return;
  const parent = node.parent;
  const hasRuns = (n) => n && isObject(n.value) && KEY.runs in n.value;
  const owner = hasRuns(parent) ? parent : parent && parent.slot === KEY.string && hasRuns(parent.parent) ? parent.parent : null;
  if (!owner) return;
  const length = (v) => (typeof v === 'string' ? v : isObject(v) && typeof v[KEY.string] === 'string' ? v[KEY.string] : '').length;
  if (length(after) !== length(before)) {
    throw new Error(
      `This text is cut into runs of attributes by length: keep it ${length(before)} UTF-16 units long ` +
      `(it is ${length(after)}), or edit the runs' lengths in the JSON.`,
    );
  }
}

/// Whether the value at `slot` of its container may be edited: not when the member holds one of
/// the format's values (`$class`, `$id`, a wrapper's own key), whatever the value.
export const isEditableSlot = (slot) => !isFormatSlot(slot);

/// Whether `next` differs from `current` as JSON.
export const changes = (current, next) => JSON.stringify(next) !== JSON.stringify(current);

/// Writes `value` into `container[slot]` as an own, enumerable member. Defined, not assigned: a
/// member named "__proto__" is an own property of the parsed document, which assignment would
/// not reach (it would set the object's prototype instead).
export function setMember(container, slot, value) {
  Object.defineProperty(container, slot, { value, writable: true, enumerable: true, configurable: true });
}

/// A keyed colour's keys whose components stand in a readable form with a `$space` label, and
/// the keys the label is read from (the colour's space number, its custom space).
export const COLOUR_COMPONENT_KEYS = ['NSRGB', 'NSWhite', 'NSCMYK', 'NSComponents'];
const COLOUR_SPACE_KEYS = ['NSColorSpace', 'NSCustomColorSpace'];

/// After `container[slot]` changed: when it is a colour's space, the `$space` labels of the
/// colour's components are taken out and the keys that held them returned. A label is the
/// decoder's account of those keys, the server refuses one that disagrees with them, and the
/// next decode of the encoded archive says the new space (as `archive-tool set` leaves them out).
/// Components held through a `$ref` are not followed: the server names such a label if it
/// disagrees.
export function dropStaleColourLabels(container, slot) {
  if (!isObject(container) || !COLOUR_SPACE_KEYS.includes(slot)) return [];
  const dropped = [];
  for (const key of COLOUR_COMPONENT_KEYS) {
    const holder = container[key];
    if (!isObject(holder)) continue;
    const form = isObject(holder[KEY.bytes]) ? holder[KEY.bytes] : holder[KEY.data];
    if (isObject(form) && KEY.components in form && KEY.space in form) {
      delete form[KEY.space];
      dropped.push(key);
    }
  }
  return dropped;
}
