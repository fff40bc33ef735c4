// The page's state: everything about the open file, in one object the modules share.
//
// `window.archivePage` exposes `state` and `timings` to tests and the page benchmark
// (scripts/page/), read-only by convention.

export const state = {
  source: null, // {name, bytes (ArrayBuffer), format: 'binary'|'xml'|'typedstream'|'json', encoded?}
  views: {}, // name ('readable', 'raw', 'plain') → a reference index's view: {doc, text, ids, refs, ready, indexed}
  viewName: 'readable',
  opened: 0, // how many files have been opened: history entries of an earlier one lead nowhere
  maxDepth: 0, // the readable view's maxDepth, after a too-deep reply
  edits: 0,
  root: null, // the tree's root row
  selected: null, // the selected row
  matches: [], // paths found by the running or last search or class filter
  matchAt: -1, // the shown match
  searchToken: 0, // raised to stop a running search
  searched: null, // the query the matches are of
  classFilter: null,
  lastEncoded: null, // the last archive downloaded (a Blob)
};

/// When each step of opening a file ended (ms on performance.now()): start, reply, parsed,
/// firstLevel, indexed, summary.
export const timings = {};

/// The view on screen.
export const currentView = () => state.views[state.viewName];
