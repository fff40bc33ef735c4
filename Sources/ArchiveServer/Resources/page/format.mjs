// How the page writes numbers, sizes and clipped text for people.
//
// Pure: no DOM, no globals; node imports it as the browser does.

/// Characters of a value shown in its row.
export const PREVIEW_CHARS = 120;

/// `s` cut to `n` characters, with an ellipsis when anything was cut.
export const clip = (s, n = PREVIEW_CHARS) => (s.length > n ? s.slice(0, n) + '…' : s);

/// A count with thousands separators, the same in every locale: `12,345`.
export const countText = (n) => n.toLocaleString('en');

/// A count with its noun, singular for exactly one: `1 byte`, `2,048 bytes`, `3 classes`.
export const plural = (n, one, many) => `${countText(n)} ${n === 1 ? one : many || one + 's'}`;

/// A size in bytes as B, KiB or MiB with one decimal.
export function bytesText(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1 << 20)).toFixed(1)} MiB`;
}

/// The length in bytes of base64 text (padding not counted), read without copying the text (a
/// 50 MB value's row is painted without 40 ms of copying).
export function base64Length(text) {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61) end--; // '='
  return Math.floor((end * 3) / 4);
}

/// A class name cut where a line may break in it: before a capital that follows a small letter or
/// a digit (`NSMutable|Attributed|String`), and after a `.` or `_` (`MyApp.|Player`), so that a
/// narrow column wraps it between words, never inside one. The parts join back to the name.
export function nameParts(name) {
  const parts = [];
  let start = 0;
  for (let i = 1; i < name.length; i++) {
    const before = name[i - 1];
    const at = name[i];
    const camel = /[A-Z]/.test(at) && /[a-z0-9]/.test(before);
    if (camel || before === '.' || before === '_') {
      parts.push(name.slice(start, i));
      start = i;
    }
  }
  parts.push(name.slice(start));
  return parts;
}
