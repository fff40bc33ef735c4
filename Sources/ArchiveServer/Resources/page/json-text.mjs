// The document as JSON text, whatever its depth.
//
// Pure: no DOM, no globals; node imports it as the browser does.

/// `doc` as JSON text, as JSON.stringify writes it. JSON.stringify recurses, so a document nested
/// deeper than the engine's stack (a long linked list of objects) is written by a loop instead,
/// with the same output for any value made of JSON values (what JSON.parse gives, and the page's
/// edits of it): objects, arrays, strings, finite numbers, booleans and null.
export function stringify(doc) {
  try {
    return JSON.stringify(doc);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  return stringifyIteratively(doc);
}

/// The loop `stringify` falls back on; exported so it can be compared with JSON.stringify on
/// documents of every shape.
export function stringifyIteratively(doc) {
  const out = [];
  const stack = [[doc, null]];
  while (stack.length) {
    const top = stack[stack.length - 1];
    const [value, progress] = top;
    if (value === null || typeof value !== 'object') {
      out.push(typeof value === 'number' && !Number.isFinite(value) ? 'null' : JSON.stringify(value));
      stack.pop();
      continue;
    }
    const isArray = Array.isArray(value);
    if (progress === null) {
      const keys = isArray ? null : Object.keys(value).filter((k) => value[k] !== undefined);
      top[1] = { keys, at: 0 };
      out.push(isArray ? '[' : '{');
      continue;
    }
    const count = isArray ? value.length : progress.keys.length;
    if (progress.at === count) {
      out.push(isArray ? ']' : '}');
      stack.pop();
      continue;
    }
    if (progress.at > 0) out.push(',');
    const key = isArray ? progress.at : progress.keys[progress.at];
    if (!isArray) out.push(JSON.stringify(key), ':');
    progress.at++;
    stack.push([value[key], null]);
  }
  return out.join('');
}
