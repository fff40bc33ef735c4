/// Test and embedding hooks. Production leaves them empty.
package struct ServerHooks: Sendable {
    /// Runs on the worker thread at the start of every conversion job, before the body is parsed.
    /// Tests use it to hold workers busy deterministically.
    package var beforeConversion: (@Sendable () -> Void)?

    package init(beforeConversion: (@Sendable () -> Void)? = nil) {
        self.beforeConversion = beforeConversion
    }
}
