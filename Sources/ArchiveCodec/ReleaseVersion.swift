/// The version of this release: `archive-service --version`, `archive-tool --version`, the
/// `archive_build_info` metric, the service's start-up log line and the API
/// description's `info.version` (checked by a test) all say it. Bumped by hand with each
/// release, following semantic versioning of the HTTP API, the command line and the JSON
/// mapping: a change that breaks a client or a stored document is a new major version.
public enum ReleaseVersion {
    public static let current = "1.0.0"
}
