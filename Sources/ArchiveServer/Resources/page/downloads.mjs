/* eslint-env browser */
// Saving what the page holds: the view's JSON, and the document encoded again as an archive.

import { archiveFileName, encodeFormat, jsonFileName } from './archive-file.mjs';
import { ui } from './dom.mjs';
import { plural } from './format.mjs';
import { stringify } from './json-text.mjs';
import { isTypedStreamDocument } from './mapping.mjs';
import { clearProblem, hideProgress, showProblem } from './messages.mjs';
import { request } from './server.mjs';
import { currentView, state } from './state.mjs';

/// How long a saved file's object URL lives, in milliseconds.
const URL_LIFETIME_MS = 60000;

/// Saves `blob` as a file named `name`.
export function save(blob, name) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), URL_LIFETIME_MS);
}

const sourceName = () => (state.source ? state.source.name : null);

/// The document's JSON text: the reply's own while unedited (JavaScript lists keys that look like
/// array indexes first, so a document parsed and written again may order a dictionary's keys
/// differently: the same dictionary, other bytes), else the document written again.
const documentText = (view) => (view.text !== null ? view.text : stringify(view.doc));

/// Saves the view on screen as JSON.
export function downloadJSON() {
  save(new Blob([documentText(currentView())], { type: 'application/json' }), jsonFileName(sourceName(), state.viewName));
}

/// Encodes the readable document (with its edits) in the chosen format and saves the archive; a
/// problem is shown instead.
export async function downloadArchive() {
  clearProblem();
  const view = state.views.readable;
  const format = encodeFormat(ui.encodeFormat.value, state.source.format);
  try {
    const xhr = await request(`/v1/encode?format=${format}`, documentText(view), 'application/json', 'Encoding', 'blob');
    hideProgress();
    save(xhr.response, archiveFileName(state.source, state.edits > 0, isTypedStreamDocument(view.doc)));
    state.lastEncoded = xhr.response;
    document.body.dataset.encoded = String(xhr.response.size);
    if (state.edits) ui.editCount.textContent = `${plural(state.edits, 'edit')} downloaded`;
  } catch (problem) {
    hideProgress();
    showProblem(problem);
  }
}
