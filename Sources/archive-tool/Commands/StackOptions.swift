import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Options shared by the subcommands.
struct StackOptions: ParsableArguments {
    @Option(name: .customLong("stack-mib"), help: "Stack for decoding, in MiB; sets the deepest archive accepted (exit 3 beyond).")
    var stackMiB = StackOptions.defaultStackMiB

    static let defaultStackMiB = 512

    /// Converts without the depth check, to find where the stack really runs out
    /// (`scripts/bench/measure_stack.sh`); deeper input then crashes the tool.
    @Flag(help: .hidden)
    var skipDepthCheck = false

    var bytes: Int { stackMiB << 20 }

    func validate() throws {
        guard (1...65_536).contains(stackMiB), stackMiB << 20 >= StackBudget.minimumStackSize else {
            throw ValidationError("--stack-mib must be between \(StackBudget.minimumStackSize >> 20) and 65536")
        }
    }
}
