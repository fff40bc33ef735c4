import ASCIIText

/// What a Content-Type header names, as the routes and the mistake hints read it.
package enum MediaType {
    /// A media type without its parameters, lower-cased (RFC 9110 §8.3.1): "Application/JSON;
    /// charset=utf-8" is "application/json".
    package static func essence(_ contentType: String) -> String {
        contentType[..<(contentType.utf8.firstIndex(of: UInt8(ascii: ";")) ?? contentType.endIndex)].trimmingASCIIWhitespaceLowercased()
    }

    /// Whether a Content-Type names JSON: `application/json`, `text/json`, or any `+json` structured
    /// suffix (RFC 6839), parameters such as `charset` ignored.
    package static func isJSON(_ contentType: String) -> Bool {
        let essence = essence(contentType)
        return essence == "application/json" || essence == "text/json"
            || (essence.hasPrefix("application/") && essence.hasSuffix("+json"))
    }
}
