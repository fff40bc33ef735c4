// The pace of work that grows with the document: slices of a few milliseconds, with a yield to
// the browser between them, so a large document never freezes the page.
//
// Pure of the DOM: it needs only `performance` and `MessageChannel`, which node has too.

/// Longest stretch of document work between two yields, in milliseconds.
export const SLICE_MS = 12;

/// Resolves in a new task, after the browser has had its turn (input, layout, paint); unlike
/// setTimeout, with no minimum delay.
export function nextTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(0);
  });
}

/// The pace of one walk: `due()`, called once a step, turns true when the slice's `sliceMs` are
/// spent (the clock is read every 256 steps only); `next()` yields to the browser and starts the
/// next slice. `now` and `yieldTask` are the clock and the yield, replaceable for tests.
export function sliceClock({ sliceMs = SLICE_MS, now = () => performance.now(), yieldTask = nextTask } = {}) {
  let budget = now() + sliceMs;
  let steps = 0;
  return {
    due: () => ++steps % 256 === 0 && now() > budget,
    async next() {
      await yieldTask();
      budget = now() + sliceMs;
    },
  };
}
