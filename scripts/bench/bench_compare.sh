#!/bin/bash
# Two archive-tool builds side by side, paired round by round (A B A B …), on two save shapes:
#   game   scripts/gen/gen_game_save.py (teams and games pointing at each other, players, records)
#   league scripts/gen/gen_game_save.py --shape league (many small shared games, full-precision reals)
# For each shape: decode time of A, B and plistutil (binary -> XML, same file) interleaved;
# encode time of A and B, each on the JSON it wrote itself; peak RSS (VmHWM, /usr/bin/time) of
# each; the JSON nesting each wrote (archive-tool depth). Prints a markdown table.
#
# Needs: python3, /usr/bin/time, plistutil (apt-get install -y time libplist-utils)
# Usage: scripts/bench/bench_compare.sh A_TOOL B_TOOL [--size-mb 50] [--rounds 15] [--out DIR]
#   e.g. build the previous commit in a worktree (swift build -c release --static-swift-stdlib)
#        and pass its .build/release/archive-tool as A, this tree's as B.
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
[[ $# -ge 2 ]] || { sed -n 2,13p "${BASH_SOURCE[0]}" >&2; exit 2; }
tool_a="$(realpath "$1")"; tool_b="$(realpath "$2")"; shift 2
size=50
rounds=15
out="${repo}/bench-out"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --size-mb) size="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "bench_compare: unknown option $1" >&2; exit 2 ;;
  esac
done
need_hint="apt-get install -y time libplist-utils" need_commands python3 plistutil /usr/bin/time
mkdir -p "${out}"
rows="${out}/compare.tsv"
: >"${rows}"

# peak_kb COMMAND...: the peak RSS in KB of one run (stdout discarded).
peak_kb() {
  /usr/bin/time -f '%M' -o "${out}/peak.txt" "$@" >/dev/null
  cat "${out}/peak.txt"
}
# median_ms LINE-PREFIX FILE: the median bench_interleaved.py printed for a command.
median_of() { awk -v cmd="$1" 'index($0, cmd) { print $2 }' "$2"; }

for shape in game league; do
  save="${out}/${shape}-${size}mb-s2020.bin"
  [[ -s "${save}" ]] || python3 "${repo}/scripts/gen/gen_game_save.py" --shape "${shape}" --size-mb "${size}" --seed 2020 --out "${save}"
  "${tool_a}" decode "${save}" >"${save%.bin}.a.json"
  "${tool_b}" decode "${save}" >"${save%.bin}.b.json"
  times="${out}/${shape}-times.txt"
  python3 "${repo}/scripts/bench/bench_interleaved.py" "${rounds}" "${save}" \
    "${tool_a} decode ${save}" "${tool_b} decode ${save}" \
    "plistutil -i ${save} -o ${out}/${shape}.xml -f xml" >"${times}"
  python3 "${repo}/scripts/bench/bench_interleaved.py" "${rounds}" "${save%.bin}.b.json" \
    "${tool_a} encode ${save%.bin}.a.json" "${tool_b} encode ${save%.bin}.b.json" >>"${times}"
  depth_a="$("${tool_a}" depth "${save}" | awk '/^decode:/ { print $3 }' | tr -d ,)"
  depth_b="$("${tool_b}" depth "${save}" | awk '/^decode:/ { print $3 }' | tr -d ,)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${shape}" "$(stat -c %s "${save}")" \
    "$(median_of "${tool_a} decode" "${times}")" "$(median_of "${tool_b} decode" "${times}")" \
    "$(median_of "plistutil" "${times}")" \
    "$(median_of "${tool_a} encode" "${times}")" "$(median_of "${tool_b} encode" "${times}")" \
    "$(peak_kb "${tool_a}" decode "${save}")" "$(peak_kb "${tool_b}" decode "${save}")" \
    "$(peak_kb "${tool_a}" encode "${save%.bin}.a.json")" "$(peak_kb "${tool_b}" encode "${save%.bin}.b.json")" \
    "${depth_a}" "${depth_b}" >>"${rows}"
done

python3 - "${rows}" "${rounds}" <<'PY'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
print(f"Paired, {sys.argv[2]} rounds after 2 warm-up rounds, medians in ms; A = first build, B = second.\n")
print("| save | MB | decode A | decode B | B/A | plistutil | plistutil/B | encode A | encode B | B/A "
      "| peak RSS decode A/B MB | peak RSS encode A/B MB | nesting A | nesting B |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|")
for shape, size, da, db, pl, ea, eb, rda, rdb, rea, reb, na, nb in rows:
    da, db, pl, ea, eb = map(float, (da, db, pl, ea, eb))
    print(f"| {shape} | {int(size)/1e6:.1f} | {da:.1f} | {db:.1f} | {db/da:.3f} | {pl:.0f} | {pl/db:.1f}× "
          f"| {ea:.1f} | {eb:.1f} | {eb/ea:.3f} | {int(rda)/1e3:.0f} / {int(rdb)/1e3:.0f} "
          f"| {int(rea)/1e3:.0f} / {int(reb)/1e3:.0f} | {na} | {nb} |")
PY
