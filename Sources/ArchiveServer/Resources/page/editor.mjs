/* eslint-env browser */
// Editing a value in place: an input over the row's value, read back by edits.mjs, written into
// the document with the count of edits not yet downloaded.

import { el, ui } from './dom.mjs';
import { plural } from './format.mjs';
import { changes, checkRunLengths, dropStaleColourLabels, editKind, editorText, parseEdit, setMember } from './edits.mjs';
import { canEdit, select } from './navigation.mjs';
import { currentView, state } from './state.mjs';
import { paintRow, rebuildChildren } from './tree-view.mjs';

/// Opens an editor on `row`'s value when it can be edited. Enter (or leaving the input) keeps the
/// new value when it reads as one, else says why and stays; Escape leaves the value as it was.
export function beginEdit(row) {
  if (!canEdit(row)) return;
  const kind = editKind(row.value);
  const current = row.value;
  const input = el('input', 'editor');
  input.value = editorText(current);
  input.setAttribute('aria-label', `New value (${kind})`);
  const valueSpan = row.el.querySelector('.value');
  if (valueSpan) valueSpan.replaceWith(input);
  else row.el.append(input);
  input.focus();
  input.select();
  let done = false;
  const finish = (commit) => {
    if (done) return;
    if (commit) {
      let next;
      try {
        next = parseEdit(kind, input.value);
        checkRunLengths(row, current, next);
      } catch (error) {
        ui.selectionNote.textContent = error.message;
        input.setCustomValidity(error.message);
        input.reportValidity();
        return;
      }
      done = true;
      if (changes(current, next)) {
        setMember(row.container, row.slot, next);
        row.value = next;
        const relabelled = dropStaleColourLabels(row.container, row.slot);
        if (relabelled.length && row.parent) {
          for (const sibling of row.parent.childRows) if (sibling && relabelled.includes(sibling.slot)) rebuildChildren(sibling);
        }
        if (!row.el.classList.contains('edited')) {
          state.edits++;
          row.el.classList.add('edited');
        }
        ui.editCount.textContent = `${plural(state.edits, 'edit')} to download`;
        currentView().text = null; // the reply's text no longer says the document
      }
    }
    done = true;
    paintRow(row);
    // The rows above preview what they hold, this value perhaps among it: painted again.
    for (let above = row.parent; above; above = above.parent) paintRow(above);
    select(row);
  };
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') finish(true);
    else if (e.key === 'Escape') finish(false);
  });
  input.addEventListener('blur', () => finish(true));
}
