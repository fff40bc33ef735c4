#!/bin/bash
# Many small real files through one process: `archive-tool decode FILE… --output-dir DIR`
# against a shell loop of `archive-tool decode FILE -o OUT` and a shell loop of libplist's
# `plistutil -i FILE -o OUT` (binary → XML) over the same files. The files are the repository's
# real property lists of 1–20 KB (Tests/Fixtures), copied under distinct names until there are
# COUNT of them. Median wall time of ROUNDS interleaved rounds; prints a markdown table. With
# --save-mb N, a generated game save of N MB joins the files (the loops decode it too), and the
# batch is compared with the sum of the single decodes, the loop of archive-tool.
#
# Needs: plistutil (apt-get install -y libplist-utils)
# Usage: scripts/bench/bench_batch.sh TOOL [--count 1000] [--rounds 5] [--jobs N] [--save-mb N]
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
[[ $# -ge 1 ]] || { sed -n 2,9p "${BASH_SOURCE[0]}" >&2; exit 2; }
tool="$(realpath "$1")"; shift
count=1000
rounds=5
jobs=()
save_mb=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --save-mb) save_mb="$2"; shift 2 ;;
    --count) count="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --jobs) jobs=(--jobs "$2"); shift 2 ;;
    *) die "unknown option $1" ;;
  esac
done
need_hint="apt-get install -y libplist-utils" need_commands plistutil
work_dir

# Plists plistutil reads too (binary or XML, no typedstreams), 1–20 KB.
mapfile -t sources < <(find "${repo}/Tests/Fixtures/apple" "${repo}/Tests/Fixtures/public" -type f -size +1k -size -20k \
  -exec sh -c 'head -c 8 "$1" | grep -qa -e "bplist0" -e "<?xml" && echo "$1"' _ {} \; | sort)
[[ ${#sources[@]} -gt 0 ]] || die "no property lists of 1–20 KB under Tests/Fixtures"
mkdir -p "${work}/in"
for ((index = 0; index < count; index++)); do
  cp "${sources[index % ${#sources[@]}]}" "${work}/in/file-${index}.plist"
done
if [[ "${save_mb}" -gt 0 ]]; then
  python3 "${repo}/scripts/gen/gen_game_save.py" --size-mb "${save_mb}" --seed 1 --out "${work}/in/save.plist" 2>/dev/null
fi
bytes=$(cat "${work}"/in/* | wc -c)

# Each run writes into a folder of its own, and nothing is deleted until the end: on ext4, a file
# created within a minute of many deletions waits while the inode allocator passes over the
# inodes just freed (`recently_deleted`), which made every run several times slower.
run_plistutil() { for file in "${work}"/in/*; do plistutil -i "${file}" -o "${out}/${file##*/}.xml"; done; }
run_loop() { for file in "${work}"/in/*; do "${tool}" decode "${file}" -o "${out}/${file##*/}.json"; done; }
run_batch() { "${tool}" decode "${jobs[@]}" --output-dir "${out}" "${work}"/in/* 2>/dev/null; }

names=(plistutil loop batch)
declare -A times
for ((round = 0; round < rounds; round++)); do
  for name in "${names[@]}"; do
    out="${work}/out-${name}-${round}"
    mkdir -p "${out}"
    # Each run starts with the disk quiet: the last run's files written back, not during this one.
    sync
    start=$(date +%s%N)
    "run_${name}"
    times[${name}]+="$(( ($(date +%s%N) - start) / 1000000 )) "
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
plistutil_ms=$(median "${times[plistutil]}")
printf '%d files, %s bytes, %s distinct sources%s, %d rounds, %s cores\n\n' "${count}" "${bytes}" "${#sources[@]}" \
  "$([[ "${save_mb}" -gt 0 ]] && echo " and a ${save_mb} MB game save")" "${rounds}" "$(nproc)"
printf '| run | median ms | files/s | vs plistutil loop |\n|---|---:|---:|---:|\n'
for name in "${names[@]}"; do
  ms=$(median "${times[${name}]}")
  printf '| %s | %d | %d | %.2f× |\n' "${name}" "${ms}" "$(( count * 1000 / (ms > 0 ? ms : 1) ))" "$(awk -v a="${plistutil_ms}" -v b="${ms}" 'BEGIN { print a / b }')"
done
if [[ "${save_mb}" -gt 0 ]]; then
  printf '\nbatch / sum of the single decodes (the loop): %s\n' \
    "$(awk -v a="$(median "${times[batch]}")" -v b="$(median "${times[loop]}")" 'BEGIN { printf "%.2f", a / b }')"
fi
