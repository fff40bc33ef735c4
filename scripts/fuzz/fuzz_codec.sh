#!/usr/bin/env bash
# Mutation-fuzzes the codec for a bounded time (default 120 s per seed) with the Apple
# fixtures and the service's reproducers as seeds. Every input must be refused with a
# CodecError or convert and round-trip equivalently (see Sources/codec-fuzz).
# Usage: scripts/fuzz/fuzz_codec.sh [SECONDS] [SEED...]
# Reproducers land in bench-out/fuzz/; replay one with
#   .build/release/codec-fuzz --replay bench-out/fuzz/finding-1.bin
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
seconds="${1:-120}"
shift || true
seeds=("$@")
((${#seeds[@]})) || seeds=(1)
swift build -c release --product codec-fuzz >/dev/null
bin="$(swift build -c release --show-bin-path)"
mkdir -p bench-out/fuzz
status=0
for seed in "${seeds[@]}"; do
  "${bin}/codec-fuzz" --seconds "${seconds}" --seed "${seed}" --out bench-out/fuzz \
    Tests/Fixtures/apple/*.* Tests/Fixtures/corrupt/*.* Tests/Fixtures/public/keyed-archive/* \
    Tests/Fixtures/public/plain-plist/* Tests/Fixtures/public/plain-plist-with-nested-archive/* \
    Tests/Fixtures/public/typedstream/* || status=$?
done
exit "${status}"
