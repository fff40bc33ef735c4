extension UnsafeBufferPointer {
    /// Lends `body` the buffer in order, in pieces of at most `size` elements (none for an empty
    /// buffer): the one way a writer that built its bytes whole hands them to a sink that
    /// takes them in pieces (and may copy each, as a pipe to a file does), so that the sink
    /// never holds a second copy of the whole.
    func forEachPiece(of size: Int, _ body: (UnsafeBufferPointer<Element>) -> Void) {
        precondition(size > 0, "pieces of at least one element")
        var start = 0
        while start < count {
            let end = Swift.min(start + size, count)
            body(UnsafeBufferPointer(rebasing: self[start..<end]))
            start = end
        }
    }
}
