// The page's files as the tests read them: where they are, their sources, and their static imports.

import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/// Sources/ArchiveServer/Resources/page, the folder the server serves under /ui/.
export const PAGE_DIR = fileURLToPath(new URL('../../Sources/ArchiveServer/Resources/page/', import.meta.url));
/// The repository's root.
export const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

/// The page's modules, by file name.
export const moduleNames = () => readdirSync(PAGE_DIR).filter((name) => name.endsWith('.mjs')).sort();

/// A page file's text.
export const pageSource = (name) => readFileSync(path.join(PAGE_DIR, name), 'utf8');

/// The module names a module's source imports (`import … from './name.mjs'`), in order.
export function importsOf(source) {
  return [...source.matchAll(/^\s*import\s[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]);
}

/// A module's source without its comments (whole-line `//` comments and `/* … */` blocks), so
/// checks of its code do not read its prose.
export function codeOf(source) {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').replace(/\s\/\/\s.*$/gm, '');
}

/// Whether a module works with the page's elements (it says `eslint-env browser`).
export const isBrowserModule = (source) => /^\/\* eslint-env browser \*\/$/m.test(source);
