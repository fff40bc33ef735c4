#!/usr/bin/env bash
# The readable JSON of generated league saves (scripts/gen/gen_game_save.py: teams and games
# pointing at each other) parses with ordinary JSON tools at their default limits: Python's
# json (recursion limit ~1,000) and jq. Every size nests alike, as deep as the schema, and as
# deep as `archive-tool depth` reports. With --max-depth 64 a 1,000,000-node chain
# (scripts/gen/gen_chain.py) parses too, and nests no deeper than 64.
#
# Usage: scripts/ci/check_parsers.sh [--bin-dir DIR]   (default: a release build, made first; SKIP_BUILD=1)
# Needs python3 and jq. Bounded: each conversion is a few seconds at most.
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
bin_dir_arguments "$@"
bins_prepare archive-tool
tool="${bin_dir}/archive-tool"
work_dir

nesting() {
  # Nesting of the JSON on stdin, counted iteratively (Python's parser itself is the check).
  python3 -c '
import json, sys
value = json.load(sys.stdin)
deepest, stack = 0, [(value, 0)]
while stack:
    item, level = stack.pop()
    if isinstance(item, (dict, list)):
        level += 1
        stack.extend((child, level) for child in (item.values() if isinstance(item, dict) else item))
    deepest = max(deepest, level)
print(deepest)'
}

check() {
  local name=$1 json=$2 want=$3
  local found
  found="$(nesting <"${json}")" || die "${name}: Python's json cannot parse it"
  jq -e 'type' "${json}" >/dev/null || die "${name}: jq cannot parse it"
  if [[ "${found}" != "${want}" ]]; then
    die "${name}: nests ${found} levels, expected ${want}"
  fi
  echo "ok ${name}: nests ${found} levels; Python json and jq parse it"
}

depths=()
for teams in 8 200 2000; do
  save="${work}/league${teams}.bplist"
  python3 "${repo}/scripts/gen/gen_game_save.py" --teams "${teams}" --out "${save}" 2>/dev/null
  "${tool}" decode "${save}" >"${work}/league.json"
  reported="$("${tool}" depth "${save}" | sed -n 's/^decode: depth \([0-9]*\),.*/\1/p')"
  check "league save, ${teams} teams ($(wc -c <"${save}") bytes)" "${work}/league.json" "${reported}"
  depths+=("${reported}")
done
if [[ "${depths[0]}" != "${depths[1]}" || "${depths[1]}" != "${depths[2]}" || "${depths[0]}" -gt 16 ]]; then
  die "league saves nest ${depths[*]} levels: expected one depth of at most 16"
fi

chain="${work}/chain.bplist"
python3 "${repo}/scripts/gen/gen_chain.py" 1000000 cyclic >"${chain}"
"${tool}" decode --max-depth 64 "${chain}" >"${work}/chain.json"
found="$(nesting <"${work}/chain.json")"
jq -e 'type' "${work}/chain.json" >/dev/null
[[ "${found}" -le 64 ]] || die "1,000,000-node chain at --max-depth 64 nests ${found}"
"${tool}" encode "${work}/chain.json" >"${work}/chain-back.bplist"
"${tool}" compare "${chain}" "${work}/chain-back.bplist"
echo "ok 1,000,000-node chain at --max-depth 64: nests ${found} levels, parses, encodes back equivalent"
