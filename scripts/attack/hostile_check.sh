#!/usr/bin/env bash
# Runs archive-tool on the hostile inputs of scripts/gen/gen_hostile.py with a time limit:
# each conversion must finish within LIMIT seconds (default 5) with exit 0 (converted),
# 2 (refused) or 3 (over a limit), never a signal or a timeout; prints time and peak RSS.
# Usage: scripts/attack/hostile_check.sh [--bin-dir DIR] [LIMIT]
#   (default: a release build of archive-tool, made first unless SKIP_BUILD=1)
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
limit=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin-dir) bin_dir_option "${2:-}"; shift 2 ;;
    [0-9]*) limit="$1"; shift ;;
    *) echo "usage: $0 [--bin-dir DIR] [LIMIT]" >&2; exit 2 ;;
  esac
done
cd "${repo}"
bins_prepare archive-tool
tool="${bin_dir}/archive-tool"
dir="bench-out/hostile"
python3 scripts/gen/gen_hostile.py "$dir"
status=0
printf '%-28s %-14s %4s %8s %10s\n' input command exit seconds "peak KB"
run() {  # $1 input, rest: archive-tool arguments
  local input=$1; shift
  local rc=0
  /usr/bin/time -f '%e %M' -o "$dir/time.txt" timeout "$limit" "$tool" "$@" "$dir/$input" >/dev/null 2>&1 || rc=$?
  read -r seconds kb < <(tail -n 1 "$dir/time.txt")
  printf '%-28s %-14s %4s %8s %10s\n' "$input" "$*" "$rc" "$seconds" "$kb"
  case $rc in 0 | 2 | 3) ;; *) status=1 ;; esac
}
for input in shared_entries.bplist long_keys.bplist oset_key.bplist amplified.bplist amplified_raw.bplist nan_payloads.bplist; do
  run "$input" decode
  run "$input" decode --raw
done
run pretty_wide.json encode
"$tool" encode "$dir/pretty_wide.json" > "$dir/pretty_wide.bplist"
run pretty_wide.bplist decode --pretty
run flat_arrays.json encode
run flat_arrays.json encode --xml
run deep_inline.json encode
run deep_inline.json encode --xml
exit "$status"
