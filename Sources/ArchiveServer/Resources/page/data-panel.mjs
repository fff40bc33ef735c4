/* eslint-env browser */
// The data panel: what the selected data value is (its kind, as `$kind` says or else from its
// signature, its size), its
// bytes as a hex dump a page of 4 KiB at a time, and "Save bytes", which saves exactly them.
// Below the tree while a data value is selected; Escape or its close button closes it.

import { HEADER_BYTES, dataKind, kindText, profileText, writtenKind } from './data-kind.mjs';
import { base64Slice, dataOf, saveName, textBytes } from './data-value.mjs';
import { el, ui } from './dom.mjs';
import { base64Length, plural } from './format.mjs';
import { save } from './downloads.mjs';
import { dumpLines, pageRange, pageText } from './hex-dump.mjs';

/// The value shown: `{data, length, slice(from, to), kind, name, page}`, or null.
let shown = null;

/// A data value's bytes, a slice at a time: base64 decoded only where asked, text encoded once.
function sourceOf(data) {
  if (typeof data.base64 === 'string') {
    return { length: base64Length(data.base64), slice: (from, to) => base64Slice(data.base64, from, to) };
  }
  const bytes = textBytes(data);
  return { length: bytes.length, slice: (from, to) => bytes.subarray(from, Math.min(to, bytes.length)) };
}

/// The labels from `row` up to the root, for the saved file's name.
function labelsOf(row) {
  const labels = [];
  for (let r = row; r; r = r.parent) labels.push(r.label);
  return labels;
}

/// Shows `row` in the panel when its value is a data value, else closes the panel.
export function inspect(row) {
  const data = row ? dataOf(row.value, row.slot) : null;
  if (!data) {
    closeInspector();
    return;
  }
  let source;
  let kind;
  try {
    source = sourceOf(data);
    // The kind the service wrote (`$kind`), else the value's signature (the raw view, edits).
    kind = writtenKind(data.kind) || dataKind(source.slice(0, HEADER_BYTES), source.length);
  } catch (error) {
    closeInspector();
    ui.selectionNote.textContent = `not shown: ${error.message}`;
    return;
  }
  shown = { ...source, kind, name: saveName(labelsOf(row), kind.extension), page: 0 };
  const profile = profileText(kind);
  ui.inspectorKind.textContent = profile ? `${kindText(kind)}: ${profile}` : kindText(kind);
  ui.inspectorSize.textContent = plural(source.length, 'byte');
  ui.inspectorForm.textContent = typeof data.base64 === 'string' ? `${data.marker}, base64` : `${data.marker}, the service read it as UTF-8 text`;
  ui.inspectorSave.title = `Save the ${plural(source.length, 'byte')} as ${shown.name}`;
  ui.inspector.hidden = false;
  showPage(0);
}

/// Shows page `p` of the dump (clamped to the pages there are).
export function showPage(p) {
  if (!shown) return;
  const range = pageRange(shown.length, p);
  shown.page = range.page;
  const lines = dumpLines(shown.slice(range.from, range.to), range.from);
  ui.inspectorDump.replaceChildren(
    ...lines.map((line) => {
      const div = el('div', 'line');
      div.append(el('span', 'off', line.offset), el('span', 'hex', line.hex), el('span', 'ascii', line.ascii));
      return div;
    }),
  );
  ui.inspectorDump.scrollTop = 0;
  ui.inspectorPage.textContent = pageText(range, shown.length);
  ui.inspectorFirst.disabled = ui.inspectorPrev.disabled = range.page === 0;
  ui.inspectorNext.disabled = ui.inspectorLast.disabled = range.page === range.pages - 1;
}

/// Steps the dump by `delta` pages; `Infinity` goes to the last, `-Infinity` to the first.
export function stepPage(delta) {
  if (!shown) return;
  if (delta === Infinity) showPage(Number.MAX_SAFE_INTEGER);
  else if (delta === -Infinity) showPage(0);
  else showPage(shown.page + delta);
}

/// Saves the shown value's bytes, exactly, as a file named from its key and kind.
export function saveBytes() {
  if (!shown) return;
  save(new Blob([shown.slice(0, shown.length)], { type: 'application/octet-stream' }), shown.name);
}

/// Whether the panel is open.
export const inspectorOpen = () => !ui.inspector.hidden;

/// Closes the panel and forgets the value.
export function closeInspector() {
  shown = null;
  ui.inspector.hidden = true;
  ui.inspectorDump.replaceChildren();
}
