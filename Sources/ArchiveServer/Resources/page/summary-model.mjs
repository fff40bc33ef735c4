// The texts of the summary panel, from the service's summary (`/v1/decode?view=summary`).
//
// Pure: no DOM, no globals; node imports it as the browser does.

import { isObject } from './mapping.mjs';
import { bytesText, countText, plural } from './format.mjs';

/// Keys listed for each class before the rest are counted.
export const KEYS_PER_CLASS = 12;

/// The facts at the top of the panel, in order: `[name, text, key]`, `key` naming the fact for
/// scripts that read the page (`data-summary`). Facts the summary does not have are left out.
export function summaryFacts(s) {
  const facts = [];
  const fact = (name, value, key) => {
    if (value === undefined || value === null) return;
    facts.push([name, typeof value === 'number' ? countText(value) : String(value), key]);
  };
  fact('format', s.format, 'format');
  if (typeof s.bytes === 'number') fact('size', bytesText(s.bytes), 'bytes');
  fact('objects', s.objects, 'objects');
  fact('classes', Array.isArray(s.classes) ? s.classes.length : undefined, 'classCount');
  fact('shared', s.shared, 'shared');
  fact('cyclic', s.cyclic, 'cyclic');
  if (isObject(s.nesting)) {
    fact('nesting (readable)', s.nesting.readable, 'nestingReadable');
    fact('nesting (raw)', s.nesting.raw, 'nestingRaw');
  }
  return facts;
}

/// A number in a table cell; '' for anything else.
export const countCellText = (n) => (typeof n === 'number' ? countText(n) : '');

/// A class's keys, each with the kinds of its values (a kind's count only when not every object
/// of the class has it): `name (string) · age (integer 3, null 1) · 2 more`.
export function classKeysText(keys) {
  const shown = keys.slice(0, KEYS_PER_CLASS).map((k) => {
    const kinds = Object.entries(k.kinds || {}).map(([kind, n]) => (n === k.count ? kind : `${kind} ${n}`));
    return `${k.key} (${kinds.join(', ')})`;
  });
  return shown.join(' · ') + (keys.length > KEYS_PER_CLASS ? ` · ${keys.length - KEYS_PER_CLASS} more` : '');
}

/// A dictionary key's kinds of values with their counts: `string 4, integer 1`.
export const dictionaryKindsText = (kinds) => Object.entries(kinds || {}).map(([kind, n]) => `${kind} ${n}`).join(', ');

/// The containers line: `12 arrays, 1 dictionary`.
export const containersText = (containers) =>
  `${plural(containers.arrays || 0, 'array')}, ${plural(containers.dictionaries || 0, 'dictionary', 'dictionaries')}`;

/// The title of a class's filter button: its chain of superclasses, or its name.
export const classChainText = (c) => (Array.isArray(c.chain) ? c.chain.join(' → ') : c.class);
