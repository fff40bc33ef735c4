/* eslint-env browser */
// What the page tells a person outside the tree: a problem (the API's problem document), a
// notice, and the progress of a request.

import { el, ui } from './dom.mjs';

/// Problem members shown in the box's title and text rather than as fields.
const SHOWN_APART = ['title', 'detail', 'type', 'instance'];

/// Shows `problem` (a problem document, or an object like one): its title, detail, and every
/// other member as `name: value`, all as text.
export function showProblem(problem) {
  const box = ui.problem;
  box.replaceChildren();
  box.append(el('h2', null, problem.title || 'The request failed'));
  if (problem.detail) box.append(el('p', null, problem.detail));
  for (const [name, value] of Object.entries(problem)) {
    if (SHOWN_APART.includes(name)) continue;
    const line = el('p');
    line.append(el('span', 'field', name + ': '), document.createTextNode(typeof value === 'string' ? value : JSON.stringify(value)));
    box.append(line);
  }
  box.hidden = false;
}

export function clearProblem() {
  ui.problem.hidden = true;
  ui.problem.replaceChildren();
}

export function showNotice(text) {
  ui.notice.textContent = text;
  ui.notice.hidden = false;
}

export function hideNotice() {
  ui.notice.hidden = true;
}

/// Shows `text` with a bar at `fraction` (0…1), or a bar that only says work goes on.
export function showProgress(text, fraction) {
  ui.progress.hidden = false;
  ui.progressText.textContent = text;
  if (fraction === undefined) ui.progressBar.removeAttribute('value');
  else ui.progressBar.value = fraction;
}

export function hideProgress() {
  ui.progress.hidden = true;
}
