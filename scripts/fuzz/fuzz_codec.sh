#!/usr/bin/env bash
# Mutation-fuzzes the codec for a bounded time (default 120 s per seed) with the Apple
# fixtures and the service's reproducers as seeds. Every input must be refused with a
# CodecError or convert and round-trip equivalently (see Sources/codec-fuzz).
# Usage: scripts/fuzz/fuzz_codec.sh [--bin-dir DIR] [--salvage] [SECONDS] [SEED...]
#   --salvage: inputs refused whole are read again with salvage and what it reads is checked
#   (default: a release build of codec-fuzz, made first unless SKIP_BUILD=1)
# Reproducers land in bench-out/fuzz/; replay one with
#   .build/release/codec-fuzz --replay bench-out/fuzz/finding-1.bin
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
if [[ "${1:-}" == --bin-dir ]]; then
  bin_dir_option "${2:-}"
  shift 2
fi
salvage=()
if [[ "${1:-}" == --salvage ]]; then
  salvage=(--salvage)
  shift
fi
seconds="${1:-120}"
shift || true
seeds=("$@")
((${#seeds[@]})) || seeds=(1)
cd "${repo}"
bins_prepare codec-fuzz
bin="${bin_dir}"
mkdir -p bench-out/fuzz
status=0
for seed in "${seeds[@]}"; do
  "${bin}/codec-fuzz" "${salvage[@]}" --seconds "${seconds}" --seed "${seed}" --out bench-out/fuzz \
    Tests/Fixtures/apple/*.* Tests/Fixtures/corrupt/*.* Tests/Fixtures/public/keyed-archive/* \
    Tests/Fixtures/public/plain-plist/* Tests/Fixtures/public/plain-plist-with-nested-archive/* \
    Tests/Fixtures/public/typedstream/* || status=$?
done
exit "${status}"
