import ArgumentParser

/// `--output-dir`, `--recursive` and `--jobs`: many files in one run (`BatchRun`), shared by
/// `decode` and `encode`.
struct BatchOptions: ParsableArguments {
    @Option(
        name: .customLong("output-dir"),
        help: ArgumentHelp(
            "Convert every file given into this folder (made if missing), each as its own file: NAME.json from NAME (decode), NAME from NAME.json (encode).",
            discussion: "Carries on past a file it cannot convert (a line on stderr that begins with its path); nothing is left half-written; exit 1 when some failed.",
            valueName: "dir"))
    var outputDirectory: String?

    @Flag(help: "With --output-dir: take folders too, converting the files in them (names starting with . left out) and mirroring their layout.")
    var recursive = false

    @Option(
        help: "With --output-dir (or decode --ndjson): how many files are converted at once (default: one per CPU this process may use: its affinity mask, or the container's CPU quota when lower)."
    )
    var jobs: Int?

    /// The output folder as given, as bytes (`CommandLineFiles`): a folder whose name is not
    /// UTF-8 is written into as it is named.
    func folder(of command: any OptionsWithValues.Type) -> BytePath? {
        outputDirectory.map { CommandLineFiles.optionValue($0, named: ["--output-dir"], of: command) }
    }

    /// Whether this run converts many files into a folder.
    var isBatch: Bool { outputDirectory != nil }

    func validate() throws {
        if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs must be between 1 and 256") }
    }

    /// Refuses what a batch cannot take: stdin, which has no name to write under. `lines`:
    /// `decode --ndjson`, the other way to convert many files in one run.
    func validate(files: [String], singleOutput: String?, lines: Bool = false) throws {
        if isBatch || lines {
            let option = lines ? "--ndjson" : "--output-dir"
            if isBatch && lines { throw ValidationError("--ndjson writes lines on stdout; --output-dir writes files: give one of them") }
            if files.isEmpty { throw ValidationError("\(option) converts the files given: give at least one") }
            if files.contains("-") { throw ValidationError("stdin (-) has no name for \(option): give files") }
            if isBatch, singleOutput != nil { throw ValidationError("-o names one output file; --output-dir names a folder: give one of them") }
        } else if files.count > 1 {
            throw ValidationError("several files are converted into a folder: add --output-dir DIR (or --ndjson for lines on stdout)")
        } else if recursive || jobs != nil {
            throw ValidationError("--recursive and --jobs go with --output-dir or --ndjson")
        }
    }
}
