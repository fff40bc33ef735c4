/* eslint-env browser */
// The page at `/`: open an archive (or its JSON), browse its readable graph as a tree, follow
// `$ref` links, search, read the summary, edit scalar values and download the re-encoded archive.
//
// This is the page's entry module: it wires the page's controls to the other modules, each one
// concern, imported from beside it under /ui/. The pure ones (mapping, format, paths, the
// reference index, search, edits, …) touch no DOM and are unit-tested with node
// (Tests/page/).
//
// Contracts:
// - Every string that comes from a file or a reply reaches the page as text (textContent,
//   createTextNode, input values), never as markup; the server's Content-Security-Policy forbids
//   inline and remote scripts besides.
// - Work that grows with the document (indexing `$id`s and `$ref`s, searching, filtering by
//   class) runs in slices of a few milliseconds, yielding to the browser between them, so a large
//   document never freezes the page; the tree renders only what is expanded, children in pages.

import { closeInspector, inspectorOpen, saveBytes, stepPage } from './data-panel.mjs';
import { downloadArchive, downloadJSON } from './downloads.mjs';
import { open, switchView } from './documents.mjs';
import { ui } from './dom.mjs';
import { beginEdit } from './editor.mjs';
import { idOf } from './mapping.mjs';
import { follow, returnTo, select, showReferrers } from './navigation.mjs';
import { search, stepMatches } from './search-bar.mjs';
import { state, timings } from './state.mjs';
import { liveThumbnails } from './thumbnails.mjs';
import { isLeaf } from './tree-model.mjs';
import { collapse, expand, gapAt, renderPage, rowOf, toggle, visibleRowLines } from './tree-view.mjs';

/// How long the search box waits for more typing before it searches, in milliseconds.
const SEARCH_DELAY_MS = 200;

// Read by tests and the page benchmark: the state, when each step of opening a file ended, and
// how many thumbnails hold a `blob:` URL.
window.archivePage = { timings, state, liveThumbnails };

// ---- A file: picked or dropped ---------------------------------------------------------------

ui.file.addEventListener('change', () => {
  if (ui.file.files[0]) open(ui.file.files[0]);
});
let dragDepth = 0;
window.addEventListener('dragenter', (e) => {
  e.preventDefault();
  dragDepth++;
  ui.drop.hidden = false;
});
window.addEventListener('dragleave', () => {
  if (--dragDepth <= 0) {
    dragDepth = 0;
    ui.drop.hidden = true;
  }
});
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  ui.drop.hidden = true;
  const file = e.dataTransfer && e.dataTransfer.files[0];
  if (file) open(file);
});

// ---- The tree: click, double-click, keys -----------------------------------------------------

ui.tree.addEventListener('click', (e) => {
  const target = e.target;
  const line = target.closest('.row');
  if (target.dataset.ref) {
    follow(Number(target.dataset.ref), rowOf(line).segs);
    return;
  }
  if (target.dataset.referrers) {
    showReferrers(Number(target.dataset.referrers), rowOf(line).segs);
    return;
  }
  if (!line) return;
  const gap = gapAt(line);
  if (gap) {
    renderPage(gap.row, gap.shows);
    return;
  }
  const row = rowOf(line);
  if (!row) return;
  if (target.classList.contains('twist')) toggle(row);
  select(row);
});
ui.tree.addEventListener('dblclick', (e) => {
  const row = rowOf(e.target.closest('.row'));
  if (!row) return;
  if (isLeaf(row.value)) beginEdit(row);
  else toggle(row);
});
ui.tree.tabIndex = 0;
ui.tree.addEventListener('keydown', (e) => {
  const row = state.selected;
  if (!row || e.target !== ui.tree) return;
  if (e.key === 'ArrowRight') {
    expand(row);
  } else if (e.key === 'ArrowLeft') {
    collapse(row);
  } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    const lines = visibleRowLines();
    const next = lines[lines.indexOf(row.el) + (e.key === 'ArrowDown' ? 1 : -1)];
    if (next) {
      select(rowOf(next));
      next.scrollIntoView({ block: 'nearest' });
    }
  } else if (e.key === 'Enter') {
    beginEdit(row);
  } else {
    return;
  }
  e.preventDefault();
});

// ---- History ---------------------------------------------------------------------------------

ui.back.addEventListener('click', () => history.back());
ui.forward.addEventListener('click', () => history.forward());
window.addEventListener('popstate', (e) => returnTo(e.state));

// ---- Search ----------------------------------------------------------------------------------

let searchTimer = 0;
ui.search.addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => search(ui.search.value), SEARCH_DELAY_MS);
});
ui.search.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  clearTimeout(searchTimer);
  // Enter steps through the matches of what the box says; a changed query is searched first.
  if (state.matches.length && state.searched === ui.search.value) stepMatches(e.shiftKey ? -1 : 1);
  else search(ui.search.value);
});
ui.searchNext.addEventListener('click', () => stepMatches(1));
ui.searchPrev.addEventListener('click', () => stepMatches(-1));

// ---- Views, downloads, the selection's actions -----------------------------------------------

ui.viewReadable.addEventListener('click', () => switchView('readable'));
ui.viewRaw.addEventListener('click', () => switchView('raw'));
ui.viewPlain.addEventListener('click', () => switchView('plain'));
ui.downloadJSON.addEventListener('click', downloadJSON);
ui.downloadArchive.addEventListener('click', downloadArchive);
ui.copyPath.addEventListener('click', async () => {
  const text = ui.selectionPath.textContent;
  try {
    await navigator.clipboard.writeText(text);
    ui.selectionNote.textContent = 'path copied';
  } catch (_) {
    const range = document.createRange();
    range.selectNodeContents(ui.selectionPath);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    ui.selectionNote.textContent = 'path selected: press Ctrl+C';
  }
});
ui.editValue.addEventListener('click', () => {
  if (state.selected) beginEdit(state.selected);
});

ui.showReferrers.addEventListener('click', () => {
  const id = state.selected ? idOf(state.selected.value) : undefined;
  if (id !== undefined) showReferrers(id, state.selected.segs);
});

// ---- The data panel --------------------------------------------------------------------------

ui.inspectorSave.addEventListener('click', saveBytes);
ui.inspectorFirst.addEventListener('click', () => stepPage(-Infinity));
ui.inspectorPrev.addEventListener('click', () => stepPage(-1));
ui.inspectorNext.addEventListener('click', () => stepPage(1));
ui.inspectorLast.addEventListener('click', () => stepPage(Infinity));
ui.inspectorClose.addEventListener('click', () => {
  closeInspector();
  ui.tree.focus();
});
// In the dump, Page Down and Page Up turn its pages.
ui.inspectorDump.addEventListener('keydown', (e) => {
  if (e.key !== 'PageDown' && e.key !== 'PageUp') return;
  e.preventDefault();
  stepPage(e.key === 'PageDown' ? 1 : -1);
});
// Escape closes the panel from anywhere but a text field (an edit's Escape is the edit's).
document.addEventListener('keydown', (e) => {
  if (e.key !== 'Escape' || !inspectorOpen() || (e.target.closest && e.target.closest('input, select, textarea'))) return;
  const inside = ui.inspector.contains(document.activeElement);
  closeInspector();
  if (inside) ui.tree.focus();
});
