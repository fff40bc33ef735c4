/* eslint-env browser */
// Opening a file and its views: the readable document (the service's decode, or the file itself
// when it is JSON), the raw view on demand, and the summary beside them.
//
// Decodes ask for `exactNumbers=1`: every number JavaScript would change (integral reals, big
// integers, negative zero) arrives wrapped, so JSON.stringify gives the document back unchanged
// and an edited document encodes to the same archive but for the edits.

import { decodeURL, retryDepth, sniffFormat, tooDeepNotice } from './archive-file.mjs';
import { el, ui } from './dom.mjs';
import { bytesText } from './format.mjs';
import { stringify } from './json-text.mjs';
import { clearProblem, hideNotice, hideProgress, showNotice, showProblem, showProgress } from './messages.mjs';
import { select } from './navigation.mjs';
import { makeView } from './reference-index.mjs';
import { forgetSearch } from './search-bar.mjs';
import { request } from './server.mjs';
import { nextTask } from './slices.mjs';
import { currentView, state, timings } from './state.mjs';
import { renderSummary } from './summary-panel.mjs';
import { dropThumbnails } from './thumbnails.mjs';
import { refreshRefBadges, renderTree } from './tree-view.mjs';

/// The decode request for `view` of the open file, as the page's options stand.
const decodeURLFor = (view) => decodeURL(view, { maxDepth: state.maxDepth, nested: ui.nested.checked });

/// Opens `file` (a File): reads it, decodes it (unless it is JSON), shows its tree, then indexes
/// it and asks for its summary. A problem on the way is shown instead.
export async function open(file) {
  clearProblem();
  resetWorkspace();
  timings.start = performance.now();
  showProgress(`Reading ${file.name}…`);
  const bytes = await file.arrayBuffer();
  const format = sniffFormat(bytes);
  state.source = { name: file.name, bytes, format };
  ui.fileName.textContent = file.name;
  // The toolbar shortens a long name first (app.css): the whole of it on hover.
  ui.fileName.title = file.name;
  try {
    const text = format === 'json' ? new TextDecoder().decode(bytes) : await decodeReadable(file.name, bytes);
    timings.reply = performance.now();
    showProgress(`Reading the JSON (${bytesText(text.length)})…`);
    await nextTask();
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (error) {
      throw { title: 'This file is not JSON the service reads', detail: String(error.message || error) };
    }
    timings.parsed = performance.now();
    const view = makeView(doc, text);
    state.views = { readable: view };
    state.viewName = 'readable';
    ui.workspace.hidden = false;
    renderTree();
    hideProgress();
    requestAnimationFrame(() => {
      timings.firstLevel = performance.now();
      document.body.dataset.ready = '1';
    });
    view.indexed.then(() => {
      timings.indexed = performance.now();
      refreshRefBadges();
    });
    loadSummary();
  } catch (problem) {
    hideProgress();
    showProblem(problem);
  }
}

/// The readable JSON of `bytes`. An archive nested deeper than the server's stack admits
/// (413 too-deep) is asked for again with its deepest objects in a `$table` (`maxDepth`),
/// which the tree shows with links like any other reference.
async function decodeReadable(name, bytes) {
  const decode = async () => (await request(decodeURLFor('readable'), bytes, 'application/octet-stream', `Decoding ${name}`, 'text')).response;
  try {
    return await decode();
  } catch (problem) {
    const depth = retryDepth(problem);
    if (depth === null) throw problem;
    state.maxDepth = depth;
    showNotice(tooDeepNotice(problem.depth, state.maxDepth));
    return decode();
  }
}

/// Forgets the file that was open: its views, edits, selection, search, and what the page showed.
function resetWorkspace() {
  state.opened++;
  state.maxDepth = 0;
  hideNotice();
  state.views = {};
  state.edits = 0;
  state.selected = null;
  state.matches = [];
  state.matchAt = -1;
  state.searchToken++;
  state.classFilter = null;
  delete document.body.dataset.ready;
  for (const k of Object.keys(timings)) delete timings[k];
  ui.tree.replaceChildren();
  dropThumbnails();
  ui.summary.replaceChildren();
  ui.referrers.hidden = true;
  ui.search.value = '';
  ui.searchCount.textContent = '';
  ui.editCount.textContent = '';
  ui.viewReadable.classList.add('on');
  ui.viewRaw.classList.remove('on');
  ui.viewPlain.classList.remove('on');
  select(null);
}

/// The archive's bytes for a request: the file itself, or for a JSON file the archive it encodes
/// to (asked for once).
export async function archiveBytes() {
  if (state.source.format !== 'json') return state.source.bytes;
  if (!state.source.encoded) {
    const xhr = await request('/v1/encode', stringify(state.views.readable.doc), 'application/json', 'Encoding', 'arraybuffer');
    state.source.encoded = xhr.response;
  }
  return state.source.encoded;
}

/// Shows the view `name` ('readable', 'raw' or 'plain'), fetching it the first time.
export async function switchView(name) {
  if (name === state.viewName) return;
  clearProblem();
  if (!state.views[name]) {
    try {
      const label = name === 'plain' ? 'Plain view' : 'Raw view';
      const xhr = await request(decodeURLFor(name), await archiveBytes(), 'application/octet-stream', label, 'text');
      state.views[name] = makeView(JSON.parse(xhr.response), xhr.response);
      hideProgress();
    } catch (problem) {
      hideProgress();
      showProblem(problem);
      return;
    }
  }
  state.viewName = name;
  ui.viewReadable.classList.toggle('on', name === 'readable');
  ui.viewRaw.classList.toggle('on', name === 'raw');
  ui.viewPlain.classList.toggle('on', name === 'plain');
  forgetSearch();
  select(null);
  renderTree();
  currentView().indexed.then(refreshRefBadges);
}

/// Asks for the summary and shows it once the readable view's index is there (its places name
/// objects by `$id`); a problem is shown in the panel.
async function loadSummary() {
  ui.summary.replaceChildren(el('p', 'count', 'Summarising…'));
  let summary;
  try {
    const bytes = await archiveBytes();
    const xhr = await request(decodeURLFor('summary'), bytes, 'application/octet-stream', 'Summary', 'text');
    summary = JSON.parse(xhr.response);
  } catch (problem) {
    ui.summary.replaceChildren(el('h2', null, 'Summary'), el('p', 'count', problem.detail || problem.title || 'No summary for this file.'));
    return;
  } finally {
    hideProgress();
  }
  if (state.views.readable) await state.views.readable.indexed;
  renderSummary(summary);
  timings.summary = performance.now();
  document.body.dataset.summary = '1';
}
