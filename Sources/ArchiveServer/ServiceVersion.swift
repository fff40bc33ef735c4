/// The service's version: `archive-service --version`, the `archive_service_build_info` metric,
/// the start-up log line and the API description's `info.version` (checked by a test) all say it.
/// Bumped by hand with each release, following semantic versioning of the HTTP API and the JSON
/// mapping: a change that breaks a client or a stored document is a new major version.
public enum ServiceVersion {
    public static let current = "1.0.0"
}
