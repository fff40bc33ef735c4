/* eslint-env browser */
// The page's elements and the one way the page makes new ones.
//
// Contract: text goes into the page as text only (textContent, text nodes, input values), never
// as markup: a hostile archive's strings can never become elements or script. No module calls
// anything that parses a string as markup or code (ESLint's rules and PageAssetsTests check).

/// A new `tag` element with `className` (when given) and `text` as its text (when given; any value
/// is shown as its String).
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

const byId = (id) => document.getElementById(id);

/// The elements of index.html the page works with.
export const ui = {
  file: byId('file'),
  nested: byId('nested'),
  drop: byId('drop'),
  progress: byId('progress'),
  progressText: byId('progress-text'),
  progressBar: byId('progress-bar'),
  problem: byId('problem'),
  notice: byId('notice'),
  workspace: byId('workspace'),
  fileName: byId('file-name'),
  back: byId('back'),
  forward: byId('forward'),
  viewReadable: byId('view-readable'),
  viewRaw: byId('view-raw'),
  viewPlain: byId('view-plain'),
  search: byId('search'),
  searchPrev: byId('search-prev'),
  searchNext: byId('search-next'),
  searchCount: byId('search-count'),
  downloadJSON: byId('download-json'),
  encodeFormat: byId('encode-format'),
  downloadArchive: byId('download-archive'),
  editCount: byId('edit-count'),
  selectionPath: byId('selection-path'),
  copyPath: byId('copy-path'),
  editValue: byId('edit-value'),
  showReferrers: byId('show-referrers'),
  selectionNote: byId('selection-note'),
  referrers: byId('referrers'),
  tree: byId('tree'),
  summary: byId('summary'),
  inspector: byId('inspector'),
  inspectorKind: byId('inspector-kind'),
  inspectorSize: byId('inspector-size'),
  inspectorForm: byId('inspector-form'),
  inspectorSave: byId('inspector-save'),
  inspectorFirst: byId('inspector-first'),
  inspectorPrev: byId('inspector-prev'),
  inspectorPage: byId('inspector-page'),
  inspectorNext: byId('inspector-next'),
  inspectorLast: byId('inspector-last'),
  inspectorClose: byId('inspector-close'),
  inspectorDump: byId('inspector-dump'),
};
