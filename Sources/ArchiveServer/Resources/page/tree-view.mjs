/* eslint-env browser */
// The tree: one row per node, rendered only as far as it is expanded, a container's children a
// page at a time. What a row says comes from tree-model.mjs; every text is set as text.

import { el, ui } from './dom.mjs';
import { KEY, classOf, idOf, isReference } from './mapping.mjs';
import { plural } from './format.mjs';
import { valueAt } from './paths.mjs';
import { referrersOf, targetOf } from './reference-index.mjs';
import { currentView, state } from './state.mjs';
import { dataOf } from './data-value.mjs';
import { dropThumbnails, thumbnailFor } from './thumbnails.mjs';
import { numberOf, timestampTitle } from './timestamps.mjs';
import {
  PAGE_SIZE, childrenOf, gapOf, isLeaf, leafText, nodeCount, pageCount, previewOf, sizeText, swatchColour,
} from './tree-model.mjs';

/// A document with fewer nodes opens whole.
const SMALL_DOCUMENT = 500;
/// A larger one opens its root's members too when the root has at most this many.
const FIRST_LEVELS = 8;

/// The row of each row element, and the gap of each "show" element.
const rowOfLine = new WeakMap();
const gapOfLine = new WeakMap();

/// The row a row element stands for, or undefined (a "show" row, or not a row).
export const rowOf = (line) => rowOfLine.get(line);
/// The gap a "show" element stands for: `{row, from, to, shows}`, or undefined.
export const gapAt = (line) => gapOfLine.get(line);

/// One rendered node: `{value, label, segs, parent, container, slot, el, box, expanded, entries,
/// childRows}`. `el` is its row element, `box` its children's element once expanded; `entries`
/// its children (`childrenOf`), rendered a page at a time, any page first (`renderPage`), so
/// `childRows` is sparse: the rows of the pages shown.
export function makeRow(entry, segs, parentRow) {
  const row = {
    value: entry.value, label: entry.label, segs, parent: parentRow, container: entry.container, slot: entry.slot,
    el: null, box: null, expanded: false, entries: null, childRows: [],
  };
  const line = el('div', 'row');
  line.setAttribute('role', 'treeitem');
  rowOfLine.set(line, row);
  row.el = line;
  paintRow(row);
  return row;
}

/// The class of the object a reference from `from` to `id` points at, '' when not known (yet).
function targetClass(id, from) {
  const view = currentView();
  if (!view || !view.ready) return '';
  const segs = targetOf(view, from, id);
  if (!segs) return '';
  return classOf(valueAt(view.doc, segs)) || '';
}

/// (Re)writes the row's element from its value: twist, label, and a leaf's value (an image's
/// thumbnail, a number's dates on hover) or a container's class, `$id`, references to it, size
/// and preview.
export function paintRow(row) {
  const line = row.el;
  const v = row.value;
  const leaf = isLeaf(v);
  // An image's thumbnail: the one the row had when its value is the same, else made anew.
  const thumb = thumbnailFor(leaf && !isReference(v) ? dataOf(v, row.slot) : null, line.querySelector('img.thumb'));
  line.replaceChildren();
  line.append(el('span', 'twist', leaf ? '' : row.expanded ? '▾' : '▸'));
  if (row.label !== null) line.append(el('span', 'key', row.label), el('span', 'meta', ': '));
  if (leaf) {
    if (isReference(v)) {
      const id = v[KEY.ref];
      const link = el('a', 'ref', `→ #${id}`);
      link.dataset.ref = String(id);
      const target = targetClass(id, row.segs);
      line.append(link);
      if (target) line.append(el('span', 'meta', ' ' + target));
    } else {
      const [text, kind] = leafText(v);
      const value = el('span', 'value ' + kind, text);
      // A display aid: the number stays as it is wherever it goes.
      const dates = kind === 'number' ? timestampTitle(numberOf(v)) : null;
      if (dates) value.title = dates;
      line.append(value);
      if (thumb) line.append(thumb);
      const colour = swatchColour(row.label, v);
      if (colour) {
        // Set through the style object, which the page's policy allows; the value is checked to
        // be a hex colour first.
        const swatch = el('span', 'swatch');
        swatch.style.backgroundColor = colour;
        line.append(swatch);
      }
    }
    return;
  }
  line.setAttribute('aria-expanded', String(row.expanded));
  const cls = classOf(v);
  if (cls !== undefined) line.append(el('span', 'cls', cls));
  const id = idOf(v);
  if (id !== undefined) {
    line.append(el('span', 'id', `#${id}`));
    const view = currentView();
    const n = view && view.ready ? referrersOf(view, row.segs, id).length : 0;
    if (n > 0) {
      const refs = el('span', 'refs', plural(n, 'ref'));
      refs.dataset.referrers = String(id);
      line.append(refs);
    }
  }
  line.append(el('span', 'meta', ' ' + sizeText(v)));
  const preview = previewOf(v);
  if (preview) line.append(el('span', 'meta', '  ' + preview));
}

/// Shows the current view's document: a small one whole, a large one to its first levels.
export function renderTree() {
  const view = currentView();
  ui.tree.replaceChildren();
  dropThumbnails();
  const root = makeRow({ value: view.doc, label: null, container: null, slot: null }, [], null);
  state.root = root;
  ui.tree.append(root.el);
  if (isLeaf(view.doc)) return;
  expand(root);
  if (nodeCount(view.doc, SMALL_DOCUMENT) < SMALL_DOCUMENT) {
    expandAll(root);
    return;
  }
  if (root.entries.length <= FIRST_LEVELS) for (const child of root.childRows) expand(child);
}

function expandAll(row) {
  const stack = [row];
  while (stack.length) {
    const r = stack.pop();
    expand(r);
    for (const child of r.childRows) if (child && !isLeaf(child.value)) stack.push(child);
  }
}

export function expand(row) {
  if (row.expanded || isLeaf(row.value)) return;
  row.expanded = true;
  if (!row.box) {
    row.entries = childrenOf(row.value);
    row.box = el('div', 'children');
    row.box.setAttribute('role', 'group');
    row.el.after(row.box);
    const gap = makeGap(row, 0, pageCount(row.entries.length));
    if (gap) row.box.append(gap);
    renderPage(row, 0);
  }
  row.box.hidden = false;
  paintRow(row);
}

export function collapse(row) {
  if (!row.expanded) return;
  row.expanded = false;
  row.box.hidden = true;
  paintRow(row);
}

/// Makes `row`'s children again from its value (which changed below it), open if it was.
export function rebuildChildren(row) {
  if (!row.box) {
    paintRow(row);
    return;
  }
  const wasExpanded = row.expanded;
  row.box.remove();
  row.box = null;
  row.entries = null;
  row.childRows = [];
  row.expanded = false;
  if (wasExpanded) expand(row);
  else paintRow(row);
}

export const toggle = (row) => (row.expanded ? collapse(row) : expand(row));

/// A "show" row for the pages `from` up to `to` (not included) of `row`'s children; null when
/// the range is empty.
function makeGap(row, from, to) {
  const gap = gapOf(row.entries.length, from, to);
  if (!gap) return null;
  const line = el('div', 'row more', gap.text);
  gapOfLine.set(line, { row, from, to, shows: gap.shows });
  return line;
}

/// Shows page `p` of `row`'s children in place of the part of the gap that held it; nothing when
/// it is shown already.
export function renderPage(row, p) {
  const gapLine = [...row.box.children].find((child) => {
    const gap = gapAt(child);
    return gap && gap.from <= p && p < gap.to;
  });
  if (!gapLine) return;
  const page = el('div', 'page');
  const end = Math.min(row.entries.length, (p + 1) * PAGE_SIZE);
  for (let i = p * PAGE_SIZE; i < end; i++) {
    const entry = row.entries[i];
    const child = makeRow(entry, row.segs.concat(entry.segs), row);
    row.childRows[i] = child;
    page.append(child.el);
  }
  const { from, to } = gapAt(gapLine);
  gapLine.replaceWith(...[makeGap(row, from, p), page, makeGap(row, p + 1, to)].filter(Boolean));
}

/// Repaints every row, once the reference index is there: reference counts and target classes.
export function refreshRefBadges() {
  for (const line of ui.tree.querySelectorAll('.row')) {
    const row = rowOf(line);
    if (row) paintRow(row);
  }
}

/// The rows shown, in order: rows inside a collapsed parent are skipped (closest() reads no
/// layout).
export const visibleRowLines = () => [...ui.tree.querySelectorAll('.row')].filter((line) => rowOf(line) && !line.closest('.children[hidden]'));
