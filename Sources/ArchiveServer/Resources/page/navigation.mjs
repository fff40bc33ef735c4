/* eslint-env browser */
// The selected node, going to a place (opening the tree down to it), following references with
// a history entry to come back by, and the list of places that refer to an object.

import { el, ui } from './dom.mjs';
import { KEY, idOf } from './mapping.mjs';
import { countText, plural } from './format.mjs';
import { editKind, isEditableSlot } from './edits.mjs';
import { jqPath } from './paths.mjs';
import { referrersOf, targetOf } from './reference-index.mjs';
import { currentView, state } from './state.mjs';
import { PAGE_SIZE, entryIndex } from './tree-model.mjs';
import { expand, renderPage } from './tree-view.mjs';
import { showProblem } from './messages.mjs';
import { inspect } from './data-panel.mjs';

/// Referring places listed at most.
const REFERRERS_LISTED = 1000;

/// Whether `row` can be edited in the view on screen.
export const canEdit = (row) => state.viewName === 'readable' && editKind(row.value) !== null && isEditableSlot(row.slot);

/// Selects `row` (null: nothing): its path, what can be done with it, the references to it, and
/// the data panel when it is a data value.
export function select(row) {
  if (state.selected && state.selected.el) state.selected.el.classList.remove('selected');
  state.selected = row;
  ui.referrers.hidden = true;
  if (!row) {
    ui.selectionPath.textContent = 'Select a node to see its path';
    ui.copyPath.disabled = ui.editValue.disabled = ui.showReferrers.disabled = true;
    ui.selectionNote.textContent = '';
    inspect(null);
    return;
  }
  row.el.classList.add('selected');
  ui.selectionPath.textContent = jqPath(row.segs);
  ui.copyPath.disabled = false;
  ui.editValue.disabled = !canEdit(row);
  const id = idOf(row.value);
  const view = currentView();
  const count = id !== undefined && view.ready ? referrersOf(view, row.segs, id).length : 0;
  ui.showReferrers.disabled = count === 0;
  ui.selectionNote.textContent = id !== undefined ? `#${id} · ${plural(count, 'reference')} to it` : '';
  inspect(row);
}

/// Opens the tree down to `segs` (as far as it leads), scrolls to the node, marks it with the
/// class `mark` and selects it; returns its row.
export function reveal(segs, mark = 'focus') {
  let row = state.root;
  let i = 0;
  while (i < segs.length) {
    expand(row);
    const j = entryIndex(row.value, row.entries, segs, i);
    if (j < 0) break;
    renderPage(row, Math.floor(j / PAGE_SIZE));
    i += row.entries[j].segs.length;
    row = row.childRows[j];
  }
  for (const old of ui.tree.querySelectorAll('.row.focus')) old.classList.remove('focus');
  row.el.classList.add(mark);
  select(row);
  row.el.scrollIntoView({ block: 'center' });
  return row;
}

/// A history entry for the place `segs` in the view on screen.
const historyEntry = (segs, view = state.viewName) => ({ segs, view, opened: state.opened });

/// Goes to `segs` in `view` with a history entry to come back by.
export function goTo(segs, view) {
  history.pushState(historyEntry(segs, view), '');
  reveal(segs);
}

/// Goes back to a history entry's place, when the entry is of this opening of this file and of
/// the view on screen (others lead nowhere).
export function returnTo(entry) {
  if (entry && Array.isArray(entry.segs) && entry.opened === state.opened && entry.view === state.viewName && state.root) {
    reveal(entry.segs);
  }
}

/// Follows a `$ref` from `from` to the object `id`: the object's body, with a history entry for
/// the place the reference is, so Back returns there.
export async function follow(id, from) {
  const view = currentView();
  await view.indexed;
  const segs = targetOf(view, from, id);
  if (!segs) {
    showProblem({ title: 'No such object', detail: `No object in this document has "${KEY.id}": ${id}.` });
    return;
  }
  history.replaceState(historyEntry(from), '');
  goTo(segs);
}

/// Lists the places that refer to the object `id` (seen from `at`), each a link to go to.
export async function showReferrers(id, at) {
  const view = currentView();
  await view.indexed;
  const list = referrersOf(view, at, id);
  ui.referrers.replaceChildren(el('div', 'count', `${plural(list.length, 'place')} refer to #${id}:`));
  for (const segs of list.slice(0, REFERRERS_LISTED)) {
    const link = el('a', null, jqPath(segs));
    link.href = '#';
    link.addEventListener('click', (e) => {
      e.preventDefault();
      goTo(segs);
    });
    ui.referrers.append(link);
  }
  if (list.length > REFERRERS_LISTED) ui.referrers.append(el('div', 'count', `and ${countText(list.length - REFERRERS_LISTED)} more`));
  ui.referrers.hidden = false;
}
