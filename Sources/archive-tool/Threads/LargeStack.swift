import PThreads

/// Starts `body` on a new thread with `stackSize` bytes of stack; the caller joins it.
///
/// A thread that cannot start (the system is out of threads or memory) ends the tool: every
/// caller needs its thread to make progress, and there is nothing to fall back to.
func startThread(stackSize: Int, _ body: @escaping () -> Void) -> PThread {
    do {
        return try PThread.start(stackSize: stackSize, body)
    } catch {
        fatalError("archive-tool: cannot start a thread with a \(stackSize)-byte stack: \(error)")
    }
}

/// What the thread computed; written before the thread is joined, read after.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// Runs `body` on a new thread with `stackSize` bytes of stack and returns its result. The
/// calling thread meanwhile runs `whileRunning` (which must return once `body` is done,
/// such as writing out what `body` produces), then joins the thread.
///
/// The converters recurse once per nesting level, so the tool gives them a stack of a known
/// size (the main thread's is whatever `ulimit -s` says) and checks depth against it first.
/// The stack is reserved address space: pages are only committed as deep inputs touch them.
func onLargeStack<T>(_ stackSize: Int, whileRunning: () -> Void = {}, _ body: @escaping () -> T) -> T {
    let box = ResultBox<T>()
    let thread = startThread(stackSize: stackSize) { box.value = body() }
    whileRunning()
    thread.join()
    return box.value!
}
