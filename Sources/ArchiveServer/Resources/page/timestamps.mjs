// Numbers that read as dates: seconds since 2001-01-01 (Apple's reference date, what
// NSDate and CFAbsoluteTime count from) or since 1970-01-01 (Unix time), shown on hover as
// a display aid. The document, its JSON and every download stay as they are.
//
// Pure: no DOM, no globals; node imports it as the browser does.

import { KEY, isObject } from './mapping.mjs';

const APPLE_EPOCH_MS = Date.UTC(2001, 0, 1);
const UNIX_EPOCH_MS = 0;
/// A reading is offered when its date falls from 1990-01-01 up to (not including) 2100-01-01.
const EARLIEST_MS = Date.UTC(1990, 0, 1);
const LATEST_MS = Date.UTC(2100, 0, 1);
/// Numbers nearer zero than this (about 3.2 years of seconds) are not read as dates: as Apple
/// time they would fall from 1997 to 2004, and numbers that small are mostly counts, sizes and
/// numbers of things, which a date on hover would only misname.
export const LEAST_SECONDS = 1e8;

/// The readings, each its label and epoch.
const READINGS = [
  ['Apple time (seconds since 2001-01-01)', APPLE_EPOCH_MS],
  ['Unix time (seconds since 1970-01-01)', UNIX_EPOCH_MS],
];

/// The number a tree value stands for: a JSON number, or a wrapped `$real` or `$integer`; null
/// for anything else.
export function numberOf(v) {
  if (typeof v === 'number') return v;
  if (!isObject(v)) return null;
  const text = typeof v[KEY.real] === 'string' ? v[KEY.real] : typeof v[KEY.integer] === 'string' ? v[KEY.integer] : null;
  if (text === null) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/// A time in UTC as people read it: `2023-03-08 14:13:20 UTC`, milliseconds when it has them.
export function utcText(ms) {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.endsWith('.000Z') ? iso.slice(11, 19) : iso.slice(11, 23)} UTC`;
}

/// The plausible readings of `seconds` as a date: `[{label, text}]`, Apple's first; empty when
/// neither falls within 1990–2100 (or the number is under `LEAST_SECONDS`).
export function timestampReadings(seconds) {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || Math.abs(seconds) < LEAST_SECONDS) return [];
  const out = [];
  for (const [label, epoch] of READINGS) {
    const ms = epoch + seconds * 1000;
    if (ms >= EARLIEST_MS && ms < LATEST_MS) out.push({ label, text: utcText(ms) });
  }
  return out;
}

/// The hover text of a number that reads as a date, each reading on its line and named; null
/// when it reads as none.
export function timestampTitle(seconds) {
  const readings = timestampReadings(seconds);
  return readings.length ? readings.map((r) => `${r.label}: ${r.text}`).join('\n') : null;
}
