import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `archive-tool depth`: how deep decoding a file recurses, and the stack that needs.
struct Depth: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "How deep converting FILE recurses, and the stack that takes.",
        discussion:
            "For an archive: the JSON nesting of its readable and raw views (the most arrays and objects open at once, what JSON parsers limit), and the stack decoding it takes (the service answers 413 above the limit its --stack-size gives). For a JSON document: its nesting. Measured without recursion."
    )

    @Argument(help: "Archive or JSON document, or - for stdin.")
    var file: String

    func run() throws {
        let input = try readInput(CommandLineFiles.paths([file], of: Depth.self)[0])
        func line(_ what: String, _ depth: Int, bytesPerLevel: Int) -> String {
            let stack = StackBudget.reserveBytes + depth * bytesPerLevel
            return "\(what): depth \(depth), needs a stack of \((stack + (1 << 20) - 1) >> 20) MiB\n"
        }
        let text = try reportingErrors { () throws(CodecError) -> String in
            if input.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }).map({ $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") }) ?? false {
                let document = try JSONDocument(parsing: input)
                return "encode: depth \(document.depth); the encoder does not recurse, any stack will do\n"
            }
            let archive = try Archive(parsing: input)
            return line("decode", archive.depth(of: .readable), bytesPerLevel: StackBudget.bytesPerLevel)
                + line("decode --raw", archive.depth(of: .raw), bytesPerLevel: StackBudget.bytesPerLevel)
        }
        writeAll(text, to: 1)
    }
}
