/// The page at `/`: its HTML, modules and style sheet, compiled into the binary like the API
/// description, so the container serves it with nothing beside the executable.
///
/// Safe by construction: the page shows every string from an archive as text, and the policy
/// sent with each of its files lets it run only its own scripts (no inline or remote scripts, no
/// `eval`), load nothing from elsewhere, talk only to this server, and not be framed; it sets
/// no cookies. Its conversions go through `/v1/decode` and `/v1/encode`, so the memory budget
/// and limits of the API hold for it.
enum PageAssets {
    /// Every file of `Resources/page` (Package.swift embeds the whole folder), by name: the one
    /// list of the page's files. A file added to the folder is served once it is named here
    /// (PageAssetsTests fails until it is); its content type comes from its extension.
    static let files: [(name: String, bytes: [UInt8])] = [
        ("index.html", PackageResources.index_html),
        ("app.css", PackageResources.app_css),
        ("app.mjs", PackageResources.app_mjs),
        ("archive-file.mjs", PackageResources.archive_file_mjs),
        ("data-kind.mjs", PackageResources.data_kind_mjs),
        ("data-panel.mjs", PackageResources.data_panel_mjs),
        ("data-value.mjs", PackageResources.data_value_mjs),
        ("documents.mjs", PackageResources.documents_mjs),
        ("dom.mjs", PackageResources.dom_mjs),
        ("downloads.mjs", PackageResources.downloads_mjs),
        ("editor.mjs", PackageResources.editor_mjs),
        ("edits.mjs", PackageResources.edits_mjs),
        ("format.mjs", PackageResources.format_mjs),
        ("hex-dump.mjs", PackageResources.hex_dump_mjs),
        ("json-text.mjs", PackageResources.json_text_mjs),
        ("mapping.mjs", PackageResources.mapping_mjs),
        ("messages.mjs", PackageResources.messages_mjs),
        ("navigation.mjs", PackageResources.navigation_mjs),
        ("paths.mjs", PackageResources.paths_mjs),
        ("reference-index.mjs", PackageResources.reference_index_mjs),
        ("search-bar.mjs", PackageResources.search_bar_mjs),
        ("search.mjs", PackageResources.search_mjs),
        ("server.mjs", PackageResources.server_mjs),
        ("slices.mjs", PackageResources.slices_mjs),
        ("state.mjs", PackageResources.state_mjs),
        ("summary-model.mjs", PackageResources.summary_model_mjs),
        ("summary-panel.mjs", PackageResources.summary_panel_mjs),
        ("thumbnails.mjs", PackageResources.thumbnails_mjs),
        ("timestamps.mjs", PackageResources.timestamps_mjs),
        ("tree-model.mjs", PackageResources.tree_model_mjs),
        ("tree-view.mjs", PackageResources.tree_view_mjs)
    ]

    /// Where a page file is served: the HTML at the route's own path, every other file under
    /// `/ui/` by its name.
    static func path(ofFileNamed name: String) -> String {
        name == "index.html" ? "/" : "/ui/\(name)"
    }

    /// The content type of a page file, by its extension; nil for an extension the page does not
    /// use (such a file is not served).
    static func contentType(ofFileNamed name: String) -> String? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        return switch name[name.index(after: dot)...] {
        case "html": "text/html; charset=utf-8"
        case "mjs", "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        default: nil
        }
    }

    /// The served files by path, each compressed once, when the first is asked for.
    private static let assets: [String: StaticAsset] = Dictionary(
        files.compactMap { file in
            contentType(ofFileNamed: file.name).map {
                (path(ofFileNamed: file.name), StaticAsset(contentType: $0, plain: file.bytes, headers: headers))
            }
        },
        uniquingKeysWith: { first, _ in first }
    )

    /// The page file served at `path`, or nil.
    static func asset(at path: String) -> StaticAsset? {
        assets[path]
    }

    /// Every path `asset(at:)` answers (known without compressing any file: the router asks on
    /// every request).
    static let paths = Set(files.filter { contentType(ofFileNamed: $0.name) != nil }.map { path(ofFileNamed: $0.name) })

    /// `img-src blob:` is for the thumbnails of image data values, made from the value's bytes in
    /// the page (`URL.createObjectURL`): nothing is loaded from elsewhere.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    private static let headers = [
        HTTPResponse.Header(name: "Content-Security-Policy", value: contentSecurityPolicy),
        HTTPResponse.Header(name: "Referrer-Policy", value: "no-referrer"),
        HTTPResponse.Header(name: "Cache-Control", value: "no-cache")
    ]
}
