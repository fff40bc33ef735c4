import Foundation

/// The bytes of memory the process has resident (`/proc/self/statm`'s second field, in
/// pages). Tests compare it before and after building a value that is still alive, to bound
/// what that value touched: memory freed may stay resident and other threads count too, so a
/// bound should be far above the expected and far below the bug's figure. 0 when it cannot tell.
public func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
