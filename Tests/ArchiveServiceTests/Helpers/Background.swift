import Foundation

/// Runs a blocking call on its own thread; `wait` returns its result.
final class Background<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, any Error>?

    init(_ body: @escaping @Sendable () throws -> T) {
        Thread.detachNewThread { [self] in
            result = Result { try body() }
            done.signal()
        }
    }

    func wait(seconds: Double = 30) -> Result<T, any Error>? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result
    }
}
