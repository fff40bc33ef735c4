#!/usr/bin/env bash
# Measures the stack one level of recursion costs in the readable JSON writer (decode), for
# every shape of nesting (scripts/gen/gen_deep_json.py lists them), and in the raw view. The
# encoder does not recurse (StackBudgetTests encode 20,000 levels on a 256 KiB stack). For each, binary-searches the
# most levels that convert on a STACK_MIB stack with the depth check off
# (archive-tool --skip-depth-check), reads that input's depth (archive-tool depth) and
# prints bytes per depth unit = (stack - reserve) / depth. StackBudget must hold the
# largest figure, with a margin.
# Usage: [SHAPES="dict generic"] scripts/bench/measure_stack.sh [debug|release] [STACK_MIB]
#   (builds archive-tool in that configuration first unless SKIP_BUILD=1 or BIN_DIR=DIR)
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "${repo}"
config=${1:-release}
stack_mib=${2:-16}
bins_prepare -c "$config" archive-tool
tool="${bin_dir}/archive-tool"
work_dir
reserve=$((128 * 1024))

make_input() {  # $1 mode, $2 shape, $3 levels -> path of the archive to convert
  python3 scripts/gen/gen_deep_json.py "$2" "$3" > "$work/in.json"
  "$tool" encode "$work/in.json" > "$work/in.bin"
  echo "$work/in.bin"
}
converts() {  # $1 mode, $2 input -> exit 0 when the conversion survives
  local args=(decode)
  [[ $1 == raw ]] && args=(decode --raw)
  # The subshell (not replaced by exec: it has a second command) prints bash's
  # "Segmentation fault" notice to its own stderr, which is discarded.
  ( "$tool" "${args[@]}" --stack-mib "$stack_mib" --skip-depth-check "$2" > /dev/null 2>&1; exit $? ) 2>/dev/null
}
printf '%-8s %-7s %-8s %9s %9s %14s\n' config mode shape levels depth bytes/depth
# (raw = decode --raw; "depth" is what archive-tool depth reports for that input)
for mode in decode raw; do
  read -r -a shapes <<<"${SHAPES:-generic array dict wrapper set ordered pairs plist inline}"
  [[ $mode == raw ]] && shapes=(inline)  # the only shape that nests the plist itself
  for shape in "${shapes[@]}"; do
    low=1 high=$((stack_mib * 1024 * 1024 / 64))
    while ((high - low > low / 200 + 1)); do
      mid=$(((low + high) / 2))
      if converts "$mode" "$(make_input "$mode" "$shape" "$mid")"; then low=$mid; else high=$mid; fi
    done
    label="$mode:"
    [[ $mode == raw ]] && label="decode --raw:"
    depth=$("$tool" depth "$(make_input "$mode" "$shape" "$low")" | grep -F "$label" | sed 's/.*depth \([0-9]*\).*/\1/')
    printf '%-8s %-7s %-8s %9d %9d %14d\n' "$config" "$mode" "$shape" "$low" "$depth" \
      $(((stack_mib * 1024 * 1024 - reserve) / depth))
  done
done
