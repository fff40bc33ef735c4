// swift-tools-version:6.0
import PackageDescription

/// Type metadata reached through direct accessors, not demangled from a type's mangled name at
/// its first use: a static `archive-tool` spent about half of a small file's decode (0.45 M of
/// 0.95 M instructions) demangling names and, for the first generic type whose parameters must
/// conform to a protocol (`Set<Int>`: `Int: Hashable`), scanning all 3,754 conformance records
/// of the binary. The accessors know their conformances statically (docs/benchmarks.md,
/// "Start-up"); the binary grows by 0.2 %.
let directMetadata: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"], .when(configuration: .release))
]

let package = Package(
    name: "ArchiveService",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ArchiveCodec", targets: ["ArchiveCodec"]),
        .executable(name: "archive-tool", targets: ["archive-tool"]),
        .executable(name: "archive-service", targets: ["archive-service"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2")
    ],
    targets: [
        // Pure codec: property lists, JSON, the keyed-archive mapping and the depth probe.
        // No threads, no sockets, no Foundation.
        .target(name: "ArchiveCodec", swiftSettings: directMetadata),
        // The pthread primitives the server, its worker pool and archive-tool share: a mutex, a
        // condition variable, and a joinable thread with a stack of an exact size.
        .target(name: "PThreads", swiftSettings: directMetadata),
        // What the host gives this process, read from the kernel's files: the CPUs it may use
        // (affinity mask, the cgroup's quota) and the cgroup's memory limit. The service's
        // defaults and archive-tool's --jobs follow them.
        .target(name: "HostResources", dependencies: ["ASCIIText"], swiftSettings: directMetadata),
        // Text compared and trimmed as ASCII bytes (protocol tokens, settings, kernel files),
        // not with Unicode's case mapping and whitespace.
        .target(name: "ASCIIText", swiftSettings: directMetadata),
        .systemLibrary(
            name: "CLibevent",
            pkgConfig: "libevent_pthreads",
            providers: [.apt(["libevent-dev"])]
        ),
        // zlib, for gzip and deflate request and reply bodies (Content-Encoding, Accept-Encoding).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // glibc's malloc.h (malloc_trim), which Swift's Glibc module leaves out.
        .systemLibrary(name: "CMalloc"),
        // The HTTP core, knowing nothing of archives and the only code that touches libevent:
        // event loops, listening, connections and their guards (deadlines, admission,
        // refusals as decisions), request heads and bodies, framing, replies. An application
        // plugs in through `HTTPApplication`.
        .target(
            name: "HTTPCore", dependencies: ["ASCIIText", "CLibevent", "PThreads", .product(name: "Logging", package: "swift-log")],
            swiftSettings: directMetadata),
        // The service on the HTTP core: routes, problem documents, conversions on the worker
        // pool, configuration, metrics, content codings, the page.
        .target(
            name: "ArchiveServer",
            dependencies: [
                "ArchiveCodec", "ASCIIText", "CMalloc", "CZlib", "HostResources", "HTTPCore", "PThreads",
                .product(name: "Logging", package: "swift-log")
            ],
            // The API description served at GET /openapi.yaml and the page at GET / with its
            // modules and style sheet, compiled into the binary so the container needs no file
            // beside it. openapi.yaml is a link to the repository's: one file. The page's folder
            // is embedded whole, each file as PackageResources.<name>; PageAssets lists them.
            resources: [
                .embedInCode("Resources/openapi.yaml"),
                .embedInCode("Resources/page")
            ],
            swiftSettings: directMetadata
        ),
        .executableTarget(
            name: "archive-service",
            dependencies: [
                "ArchiveServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: directMetadata
        ),
        .executableTarget(
            name: "archive-tool",
            dependencies: [
                "ArchiveCodec", "HostResources", "PThreads",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            swiftSettings: directMetadata,
            // One file, nothing to load: a dynamically linked tool spends 2.5 M instructions in
            // the dynamic loader (resolving libstdc++'s and libc's symbols) before `main`,
            // more than a small file's whole decode (docs/benchmarks.md, "Start-up"). Release
            // builds only: AddressSanitizer (CI's debug build with --sanitize=address) cannot
            // link a static executable. Without --static-swift-stdlib, SwiftPM does not add the
            // two libraries FoundationEssentials rests on; named here, a plain
            // `swift build -c release` links too.
            linkerSettings: [
                .unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release)),
                .linkedLibrary("_FoundationCollections", .when(platforms: [.linux], configuration: .release)),
                .linkedLibrary("_FoundationCShims", .when(platforms: [.linux], configuration: .release))
            ]
        ),
        // Time-bounded mutation fuzzer for the codec; run by scripts/fuzz/fuzz_codec.sh.
        .executableTarget(
            name: "codec-fuzz",
            dependencies: [
                "ArchiveCodec",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]
        ),
        // What the test targets share: the fixtures loader (Tests/Fixtures, read in place), the built executables and the
        // hand-written property list builder (binary and XML) the tests' archives are made with.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ArchiveCodecTests", dependencies: ["ArchiveCodec", "TestSupport"]),
        .testTarget(name: "PThreadsTests", dependencies: ["PThreads", "TestSupport"]),
        .testTarget(name: "HostResourcesTests", dependencies: ["HostResources"]),
        .testTarget(name: "ASCIITextTests", dependencies: ["ASCIIText"]),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore", "TestSupport"]),
        .testTarget(name: "ArchiveServiceTests", dependencies: ["ArchiveServer", "ArchiveCodec", "CLibevent", "HostResources", "HTTPCore", "TestSupport"]),
        // archive-tool as a process: files in, stdout out, exit codes.
        .testTarget(name: "ArchiveToolTests", dependencies: ["ArchiveCodec", "TestSupport"])
    ]
)

// Swift's upcoming features that fit this code, on for every Swift target (as Hummingbird and
// swift-nio enable them): `any` spelled wherever a type is an existential, so a protocol's cost
// is visible where it is paid. (MemberImportVisibility is left off: with Swift 6.3 on Linux it
// refuses Glibc's zero initialisers of C structs, `pthread_attr_t()`, as Dispatch's.)
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("ExistentialAny")]
}
