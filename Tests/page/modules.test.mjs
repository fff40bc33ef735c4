// The page's module graph as the browser loads it: from index.html's one script, every module
// reached and every import found beside it; the pure modules import in node.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

import { PAGE_DIR, importsOf, isBrowserModule, moduleNames, pageSource } from './page-files.mjs';

const graph = new Map(moduleNames().map((name) => [name, importsOf(pageSource(name)).map((spec) => spec.replace(/^\.\//, ''))]));

/// The modules `name` imports, directly or through others.
function reachedFrom(name, seen = new Set()) {
  for (const next of graph.get(name) || []) {
    if (!seen.has(next)) {
      seen.add(next);
      reachedFrom(next, seen);
    }
  }
  return seen;
}

test('index.html loads one module script from /ui/, and the style sheet beside it', () => {
  const html = pageSource('index.html');
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  assert.deepEqual(scripts, ['<script type="module" src="/ui/app.mjs">']);
  const entry = 'app.mjs';
  assert.ok(graph.has(entry));
  const sheets = [...html.matchAll(/<link rel="stylesheet" href="\/ui\/([^"]+)">/g)].map((m) => m[1]);
  assert.deepEqual(sheets, ['app.css']);
});

test('every module is reached from the entry, and every import is a module beside it', () => {
  const reached = reachedFrom('app.mjs');
  reached.add('app.mjs');
  assert.deepEqual([...graph.keys()].filter((name) => !reached.has(name)), [], 'modules nothing imports');
  for (const [name, imports] of graph) {
    for (const spec of importsOf(pageSource(name))) assert.match(spec, /^\.\/[a-z][a-z-]*\.mjs$/, `${name} imports ${spec}`);
    for (const target of imports) assert.ok(graph.has(target), `${name} imports ${target}, which is not in the folder`);
  }
});

test('the modules form layers: none imports one that imports it', () => {
  for (const name of graph.keys()) assert.ok(!reachedFrom(name).has(name), `${name} imports itself through others`);
});

test('pure modules import no browser module, and node imports them', async () => {
  const browser = new Set([...graph.keys()].filter((name) => isBrowserModule(pageSource(name))));
  assert.ok(browser.has('dom.mjs') && browser.has('app.mjs'));
  const pure = [...graph.keys()].filter((name) => !browser.has(name));
  assert.ok(pure.includes('mapping.mjs') && pure.length >= 10, pure.join(' '));
  for (const name of pure) {
    const uses = [...reachedFrom(name)].filter((other) => browser.has(other));
    assert.deepEqual(uses, [], `${name} is pure but imports browser modules`);
    assert.equal(typeof document, 'undefined', 'node has no DOM');
    const module = await import(pathToFileURL(path.join(PAGE_DIR, name)).href);
    assert.ok(Object.keys(module).length > 0, `${name} exports nothing`);
  }
});

test('the import reader reads every form the modules use', () => {
  const source = "import { a } from './a.mjs';\nimport {\n  b,\n  c,\n} from './b-c.mjs';\n// import { no } from './comment.mjs'\nconst x = 1;";
  assert.deepEqual(importsOf(source), ['./a.mjs', './b-c.mjs']);
});
