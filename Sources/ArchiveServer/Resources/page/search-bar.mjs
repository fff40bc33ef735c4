/* eslint-env browser */
// The search box and the class filter on screen: a walk of search.mjs over the view on screen,
// its running count, the first match shown as soon as it is found, and stepping through them.

import { ui } from './dom.mjs';
import { sliceClock } from './slices.mjs';
import {
  classLabel, classMatcher, collectMatches, finalCountText, positionText, queryLabel, runningCountText, textMatcher,
  withoutPosition,
} from './search.mjs';
import { currentView, state } from './state.mjs';
import { reveal } from './navigation.mjs';

/// How often a running search shows its count, in milliseconds: each change of the text lays the
/// page out again, which costs as much as a slice when the tree is large.
const COUNT_EVERY_MS = 250;

/// Finds the places where `step` (search.mjs) matches in the view on screen, under `label`. A newer
/// search stops an older one.
async function findAll(step, label) {
  const token = ++state.searchToken;
  const matches = [];
  state.matches = matches;
  state.matchAt = -1;
  for (const old of ui.tree.querySelectorAll('.row.hit, .row.focus')) old.classList.remove('hit', 'focus');
  let shown = 0;
  let first = true;
  const onPause = (found) => {
    const now = performance.now();
    if (now - shown > COUNT_EVERY_MS) {
      shown = now;
      ui.searchCount.textContent = runningCountText(label, found.length);
    }
    if (first && found.length) {
      first = false;
      state.matchAt = 0;
      reveal(found[0]);
    }
  };
  const done = await collectMatches(currentView().doc, step, matches, {
    clock: sliceClock(), onPause, stillWanted: () => token === state.searchToken,
  });
  if (!done || token !== state.searchToken) return;
  if (matches.length && state.matchAt < 0) {
    state.matchAt = 0;
    reveal(matches[0]);
  }
  ui.searchCount.textContent = finalCountText(label, matches.length, state.matchAt, { byClass: Boolean(state.classFilter) });
  document.body.dataset.searched = String(matches.length);
}

/// Searches the view on screen for `query`; an empty query stops any search and clears the count.
export function search(query) {
  state.searched = query;
  state.classFilter = null;
  const step = textMatcher(query);
  if (!step) {
    state.searchToken++;
    state.matches = [];
    ui.searchCount.textContent = '';
    return;
  }
  findAll(step, queryLabel(query));
}

/// Finds the objects of class `name`, stepped through like search results.
export function filterClass(name) {
  state.classFilter = name;
  state.searched = null;
  ui.search.value = '';
  findAll(classMatcher(name), classLabel(name));
}

/// Shows the next (`delta` 1) or previous (-1) match, round the end.
export function stepMatches(delta) {
  const n = state.matches.length;
  if (!n) return;
  state.matchAt = (state.matchAt + delta + n) % n;
  reveal(state.matches[state.matchAt]);
  ui.searchCount.textContent = positionText(state.matchAt, withoutPosition(ui.searchCount.textContent));
}

/// Stops a running search and forgets its matches (another file or view is on screen).
export function forgetSearch() {
  state.matches = [];
  state.searchToken++;
  ui.searchCount.textContent = '';
}
