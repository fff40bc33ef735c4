/* eslint-env browser */
// The summary panel: the service's summary of the archive (texts from summary-model.mjs), each
// class a filter of the tree, the largest strings and data links to their places.

import { el, ui } from './dom.mjs';
import { countText, nameParts, plural } from './format.mjs';
import { isObject } from './mapping.mjs';
import { parsePlace } from './paths.mjs';
import { targetOf } from './reference-index.mjs';
import { state } from './state.mjs';
import {
  classChainText, classKeysText, containersText, countCellText, dictionaryKindsText, summaryFacts,
} from './summary-model.mjs';
import { filterClass } from './search-bar.mjs';
import { goTo } from './navigation.mjs';

/// Fills the panel from the summary `s`. Every string of it is shown as text.
export function renderSummary(s) {
  const box = ui.summary;
  box.replaceChildren(el('h2', null, 'Summary'));
  const facts = el('dl');
  for (const [name, text, key] of summaryFacts(s)) {
    const dd = el('dd', null, text);
    dd.dataset.summary = key;
    facts.append(el('dt', null, name), dd);
  }
  box.append(facts);
  if (Array.isArray(s.classes) && s.classes.length) box.append(el('h3', null, 'Classes'), classTable(s.classes, box));
  if (typeof s.classesNotListed === 'number') box.append(el('p', 'count', `and ${plural(s.classesNotListed, 'more class', 'more classes')}`));
  if (isObject(s.containers)) box.append(el('h3', null, 'Containers'), el('div', null, containersText(s.containers)));
  if (Array.isArray(s.dictionaryKeys) && s.dictionaryKeys.length) {
    box.append(el('h3', null, 'Dictionary keys'));
    const table = el('table');
    for (const k of s.dictionaryKeys) {
      const tr = el('tr');
      tr.append(el('td', null, k.key), el('td', 'n', countText(k.count || 0)), el('td', 'keys', dictionaryKindsText(k.kinds)));
      table.append(tr);
    }
    box.append(table);
    if (typeof s.dictionaryKeysNotListed === 'number') box.append(el('p', 'count', `and ${plural(s.dictionaryKeysNotListed, 'more use')} of keys not listed`));
  }
  if (Array.isArray(s.nestedPayloads) && s.nestedPayloads.length) {
    box.append(el('h3', null, 'Archives inside data'));
    for (const p of s.nestedPayloads) box.append(el('div', null, `${p.format}: ${p.count}`));
  }
  if (Array.isArray(s.dataKinds) && s.dataKinds.length) {
    box.append(el('h3', null, 'Data by kind'));
    for (const k of s.dataKinds) box.append(el('div', null, `${k.kind}: ${plural(k.count, 'value')}, ${plural(k.bytes, 'byte')}`));
  }
  for (const [title, list] of [['Largest strings', s.largestStrings], ['Largest data', s.largestData]]) {
    if (!Array.isArray(list) || !list.length) continue;
    box.append(el('h3', null, title));
    for (const item of list) box.append(largeValueLine(item));
  }
}

/// The classes' table: each class a button that filters the tree to its objects, its counts,
/// and a line of its keys.
function classTable(classes, box) {
  const table = el('table');
  const head = el('tr');
  head.append(el('th', null, 'class'), el('th', null, 'objects'), el('th', null, 'shared'), el('th', null, 'cyclic'));
  table.append(head);
  for (const c of classes) {
    const tr = el('tr');
    const name = el('td');
    // The name in its words, a line break allowed between them only (`nameParts`).
    const button = el('button', 'class-filter');
    nameParts(c.class).forEach((part, index) => {
      if (index > 0) button.append(el('wbr'));
      button.append(document.createTextNode(part));
    });
    button.type = 'button';
    button.title = classChainText(c);
    button.addEventListener('click', () => {
      for (const b of box.querySelectorAll('.class-filter.on')) b.classList.remove('on');
      button.classList.add('on');
      filterClass(c.class);
    });
    name.append(button);
    const num = (n, key) => {
      const td = el('td', 'n', countCellText(n));
      td.dataset.summary = key;
      return td;
    };
    tr.append(name, num(c.count, 'count'), num(c.shared, 'shared'), num(c.cyclic, 'cyclic'));
    tr.dataset.class = c.class;
    table.append(tr);
    if (Array.isArray(c.keys) && c.keys.length) {
      const keys = el('tr');
      const td = el('td', 'keys', classKeysText(c.keys));
      td.colSpan = 4;
      keys.append(td);
      table.append(keys);
    }
  }
  return table;
}

/// One of the largest strings or data: its length and preview, a link to its place when the
/// place is one in the readable view.
function largeValueLine(item) {
  const line = el('div', 'preview');
  line.append(el('span', 'meta', `${countText(item.length || 0)} · `));
  const view = state.views.readable;
  const segs = typeof item.path === 'string' && view ? parsePlace(item.path, view.doc, (at, id) => targetOf(view, at, id)) : null;
  if (segs) {
    const link = el('a', 'place', item.preview || item.path);
    link.href = '#';
    link.title = item.path;
    link.addEventListener('click', (e) => {
      e.preventDefault();
      if (state.viewName !== 'readable') return;
      goTo(segs, 'readable');
    });
    line.append(link);
  } else {
    line.append(document.createTextNode(item.preview || ''));
    if (item.path) line.title = item.path;
  }
  if (item.file) line.append(el('span', 'meta', ` (${item.file})`));
  return line;
}
