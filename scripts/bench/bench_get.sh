#!/bin/bash
# One value of a large save against the whole of it: `archive-tool get SAVE PATH` against
# `archive-tool decode SAVE` (to /dev/null), on a generated save of SIZE MB and SHAPE (game:
# teams and games pointing at each other, players, records; league: many small shared games;
# scripts/gen/gen_game_save.py, deterministic) and for each PATH: a value near the root, one
# deep in a team, one behind a `$ref`, and a whole team. Median wall time of ROUNDS interleaved
# rounds, and with --instructions the instructions of one run of each (callgrind). Prints a
# markdown table.
#
# Needs: valgrind for --instructions (apt-get install -y valgrind)
# Usage: scripts/bench/bench_get.sh TOOL [--size-mb 50] [--shape game|league] [--rounds 9] [--instructions]
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
[[ $# -ge 1 ]] || { sed -n 2,11p "${BASH_SOURCE[0]}" >&2; exit 2; }
tool="$(realpath "$1")"; shift
size_mb=50
shape=game
rounds=9
instructions=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --size-mb) size_mb="$2"; shift 2 ;;
    --shape) shape="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --instructions) instructions=true; shift ;;
    *) die "unknown option $1" ;;
  esac
done
[[ "${instructions}" == false ]] || need_hint="apt-get install -y valgrind" need_commands valgrind
work_dir
save="${work}/save.plist"
python3 "${repo}/scripts/gen/gen_game_save.py" --shape "${shape}" --size-mb "${size_mb}" --seed 1 --out "${save}" 2>/dev/null

# Each path must answer: a path that leads nowhere would time the error.
paths=('.name' '.teams[1].name' '.teams[-1].players[3].stats.rating' '.teams[0].players[0].team.city' '.teams[7]')
for path in "${paths[@]}"; do
  "${tool}" get "${save}" "${path}" >/dev/null || die "get ${path} failed"
done

millis() {
  local start
  start=$(date +%s%N)
  "$@" >/dev/null
  echo $(( ($(date +%s%N) - start) / 1000000 ))
}
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
count_instructions() {
  env -i PATH=/usr/bin:/bin GLIBC_TUNABLES= SWIFT_DETERMINISTIC_HASHING=1 \
    valgrind --tool=callgrind --callgrind-out-file="${work}/callgrind.out" "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

declare -A times
for ((round = 0; round < rounds; round++)); do
  times[decode]+="$(millis "${tool}" decode "${save}") "
  for index in "${!paths[@]}"; do
    times[${index}]+="$(millis "${tool}" get "${save}" "${paths[index]}") "
  done
done
decode_ms=$(median "${times[decode]}")
printf '%s MB %s save (%s bytes), %d rounds, %s cores\n\n' "${size_mb}" "${shape}" "$(wc -c <"${save}")" "${rounds}" "$(nproc)"
if [[ "${instructions}" == true ]]; then
  decode_count=$(count_instructions "${tool}" decode "${save}")
  printf '| run | median ms | decode / this | instructions | this / decode |\n|---|---:|---:|---:|---:|\n'
  printf '| decode | %d | 1.00× | %s | 1.00 |\n' "${decode_ms}" "${decode_count}"
else
  printf '| run | median ms | decode / this |\n|---|---:|---:|\n'
  printf '| decode | %d | 1.00× |\n' "${decode_ms}"
fi
for index in "${!paths[@]}"; do
  ms=$(median "${times[${index}]}")
  ratio=$(awk -v a="${decode_ms}" -v b="${ms}" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 1) }')
  if [[ "${instructions}" == true ]]; then
    count=$(count_instructions "${tool}" get "${save}" "${paths[index]}")
    printf '| get %s | %d | %s× | %s | %s |\n' "\`${paths[index]}\`" "${ms}" "${ratio}" "${count}" \
      "$(awk -v a="${count}" -v b="${decode_count}" 'BEGIN { printf "%.2f", a / b }')"
  else
    printf '| get %s | %d | %s× |\n' "\`${paths[index]}\`" "${ms}" "${ratio}"
  fi
done
