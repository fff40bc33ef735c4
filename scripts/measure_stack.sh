#!/usr/bin/env bash
# Measures the stack bytes one level of recursion costs in archive-tool's decoder and
# encoder: for a stack size S (set with `ulimit -s`), binary-searches the deepest linked
# list that converts without crashing; bytes per level = S / that depth.
# Usage: scripts/measure_stack.sh [debug|release] [stack KiB]
set -euo pipefail
config=${1:-release}
stack_kib=${2:-16384}
tool=".build/$config/archive-tool"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
probe() {  # $1 = decode|encode, $2 = depth → exit 0 when it survives
    python3 scripts/gen_chain.py "$2" > "$work/chain.bin"
    if [ "$1" = encode ]; then
        (ulimit -s unlimited; "$tool" decode "$work/chain.bin" > "$work/chain.json")
        (ulimit -s "$stack_kib"; "$tool" encode "$work/chain.json" > /dev/null 2>&1)
    else
        (ulimit -s "$stack_kib"; "$tool" decode "$work/chain.bin" > /dev/null 2>&1)
    fi
}
for mode in decode encode; do
    low=100 high=400000
    while [ $((high - low)) -gt $((low / 100 + 1)) ]; do
        mid=$(((low + high) / 2))
        if probe "$mode" "$mid"; then low=$mid; else high=$mid; fi
    done
    echo "$config $mode: stack $((stack_kib * 1024)) bytes, deepest chain $low, $((stack_kib * 1024 / low)) bytes/level"
done
