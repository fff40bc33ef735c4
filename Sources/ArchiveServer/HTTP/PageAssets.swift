/// The page at `/`: its HTML, script and style sheet, compiled into the binary like the API
/// description, so the container serves it with nothing beside the executable.
///
/// Safe by construction: the page shows every string from an archive as text, and the policy
/// sent with each of its files lets it run only its own script (no inline or remote scripts, no
/// `eval`), load nothing from elsewhere, talk only to this server, and not be framed; it sets
/// no cookies. Its conversions go through `/v1/decode` and `/v1/encode`, so the memory budget
/// and limits of the API hold for it.
enum PageAssets {
    /// Where the page's files are served; the page's HTML at the route's own path.
    static func asset(at path: String) -> StaticAsset? {
        switch path {
        case "/": page
        case "/ui/app.js": script
        case "/ui/app.css": style
        default: nil
        }
    }

    /// Every path `asset(at:)` answers.
    static let paths = ["/", "/ui/app.js", "/ui/app.css"]

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    private static let headers = [
        HTTPResponse.Header(name: "Content-Security-Policy", value: contentSecurityPolicy),
        HTTPResponse.Header(name: "Referrer-Policy", value: "no-referrer"),
        HTTPResponse.Header(name: "Cache-Control", value: "no-cache")
    ]

    static let page = StaticAsset(contentType: "text/html; charset=utf-8", plain: PackageResources.index_html, headers: headers)
    static let script = StaticAsset(contentType: "text/javascript; charset=utf-8", plain: PackageResources.app_js, headers: headers)
    static let style = StaticAsset(contentType: "text/css; charset=utf-8", plain: PackageResources.app_css, headers: headers)
}
