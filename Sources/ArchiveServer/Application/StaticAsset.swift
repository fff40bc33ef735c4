/// A file compiled into the binary and served as it is: the API description and the page's
/// files. Each asset is made (and compressed, for clients that accept gzip or deflate) once,
/// when its static is first used, which is its first request; the assets are small, so
/// compressing on the loop thread holds it up once for well under a millisecond.
struct StaticAsset: Sendable {
    let contentType: String
    let plain: [UInt8]
    /// Headers sent with every reply of this asset (the page's security policy).
    let headers: [HTTPResponse.Header]
    private let gzip: [UInt8]?
    private let deflate: [UInt8]?

    init(contentType: String, plain: [UInt8], headers: [HTTPResponse.Header] = []) {
        self.contentType = contentType
        self.plain = plain
        self.headers = headers
        gzip = ReplyCompressor.compress(plain, in: .gzip)
        deflate = ReplyCompressor.compress(plain, in: .deflate)
    }

    /// The body in `coding`, or nil when it goes plain (identity, or too small to compress).
    func compressed(in coding: ContentCoding) -> [UInt8]? {
        switch coding {
        case .gzip: gzip
        case .deflate: deflate
        case .identity: nil
        }
    }

    /// The API description served at `/openapi.yaml` (the repository's openapi.yaml).
    static let apiDescription = StaticAsset(contentType: "application/yaml", plain: PackageResources.openapi_yaml)
}
