#!/usr/bin/env bash
# What making and freeing one small table costs, in instructions (callgrind): a `[Int32]` of 100
# zeros by `Array(repeating:count:)`, by `Array(unsafeUninitializedCapacity:)`, a
# `ContiguousArray`, an empty array with `reserveCapacity`, and an `UnsafeMutableBufferPointer`
# allocated, zeroed and freed. Each is made 10,000 times in a static -O build; the count of a run
# that makes none is taken off. Needs: swiftc (the toolchain), valgrind.
# Usage: scripts/bench/array_allocation.sh
set -euo pipefail

work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
cat >"${work}/tables.swift" <<'SWIFT'
@inline(never) func repeating(_ n: Int) -> Int { [Int32](repeating: 0, count: n).count }
@inline(never) func uninitialized(_ n: Int) -> Int {
    [Int32](unsafeUninitializedCapacity: n) { buffer, count in
        buffer.initialize(repeating: 0)
        count = n
    }.count
}
@inline(never) func contiguous(_ n: Int) -> Int { ContiguousArray<Int32>(repeating: 0, count: n).count }
@inline(never) func reserved(_ n: Int) -> Int {
    var table: [Int32] = []
    table.reserveCapacity(n)
    return table.capacity
}
@inline(never) func buffer(_ n: Int) -> Int {
    let table = UnsafeMutableBufferPointer<Int32>.allocate(capacity: n)
    table.initialize(repeating: 0)
    defer { table.deallocate() }
    return table.count
}
let kind = CommandLine.arguments[1]
var total = 0
for round in 0..<10_000 {
    let n = 100 + round % 3
    switch kind {
    case "repeating": total &+= repeating(n)
    case "uninitialized": total &+= uninitialized(n)
    case "contiguous": total &+= contiguous(n)
    case "reserved": total &+= reserved(n)
    case "buffer": total &+= buffer(n)
    default: break
    }
}
print(total)
SWIFT
swiftc -O -static-stdlib "${work}/tables.swift" -o "${work}/tables"
count() {
  env -i GLIBC_TUNABLES= valgrind --tool=callgrind --callgrind-out-file=/dev/null "${work}/tables" "$1" 2>&1 \
    | awk '/refs:/ { gsub(",", "", $NF); print $NF }'
}
none=$(count none)
printf '| table made by | instructions to make and free one |\n|---|---:|\n'
for kind in repeating uninitialized contiguous reserved buffer; do
  printf '| %s | %d |\n' "${kind}" "$(( ($(count "${kind}") - none) / 10000 ))"
done
