#!/bin/bash
# Memory of one `archive-tool` process over many files: peak RSS of `decode --output-dir` and of
# `decode --ndjson` over COUNT copies of the repository's real property lists of 1–20 KB, for
# each COUNT given. A batch holds one file per job at a time (and --ndjson at most 4×jobs
# results waiting for their turn), so its peak should not grow with the number of files: the
# table shows the peak for each count side by side. Also samples the RSS every 50 ms during the
# largest --output-dir run and prints it at each tenth of the run (flat, or growing).
#
# Needs: GNU time (/usr/bin/time)
# Usage: scripts/bench/batch_memory.sh TOOL [--counts "1000 10000"] [--jobs N]
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
[[ $# -ge 1 ]] || { sed -n 2,10p "${BASH_SOURCE[0]}" >&2; exit 2; }
tool="$(realpath "$1")"; shift
counts="1000 10000"
jobs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --counts) counts="$2"; shift 2 ;;
    --jobs) jobs=(--jobs "$2"); shift 2 ;;
    *) die "unknown option $1" ;;
  esac
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time missing (apt-get install -y time)"
work_dir

mapfile -t sources < <(find "${repo}/Tests/Fixtures/apple" "${repo}/Tests/Fixtures/public" -type f -size +1k -size -20k \
  -exec sh -c 'head -c 8 "$1" | grep -qa -e "bplist0" -e "<?xml" -e "streamtyped" && echo "$1"' _ {} \; | sort)
[[ ${#sources[@]} -gt 0 ]] || die "no documents of 1–20 KB under Tests/Fixtures"
largest=0
for count in ${counts}; do (( count > largest )) && largest=${count}; done
mkdir -p "${work}/in"
for ((index = 0; index < largest; index++)); do
  cp "${sources[index % ${#sources[@]}]}" "${work}/in/file-${index}.plist"
done

# peak KB and seconds of TOOL ARGS…, stdout discarded
measure() {
  /usr/bin/time -f "%M %e" -o "${work}/time" "${tool}" "$@" >/dev/null 2>/dev/null || true
  cat "${work}/time"
}

printf '%s distinct sources, %s cores, jobs: %s\n\n' "${#sources[@]}" "$(nproc)" "${jobs[*]:-default}"
printf '| files | mode | peak RSS MB | seconds |\n|---:|---|---:|---:|\n'
for count in ${counts}; do
  files=()
  for ((index = 0; index < count; index++)); do files+=("${work}/in/file-${index}.plist"); done
  rm -rf "${work}/out"
  read -r peak seconds < <(measure decode "${jobs[@]}" --output-dir "${work}/out" "${files[@]}")
  printf '| %d | --output-dir | %.1f | %s |\n' "${count}" "$(awk -v k="${peak}" 'BEGIN { print k / 1024 }')" "${seconds}"
  read -r peak seconds < <(measure decode "${jobs[@]}" --ndjson "${files[@]}")
  printf '| %d | --ndjson | %.1f | %s |\n' "${count}" "$(awk -v k="${peak}" 'BEGIN { print k / 1024 }')" "${seconds}"
done

# The RSS over the largest run, at each tenth of it.
files=()
for ((index = 0; index < largest; index++)); do files+=("${work}/in/file-${index}.plist"); done
rm -rf "${work}/out"
"${tool}" decode "${jobs[@]}" --output-dir "${work}/out" "${files[@]}" 2>/dev/null &
pid=$!
: > "${work}/rss"
while kill -0 "${pid}" 2>/dev/null; do
  awk '/^VmRSS/ { print $2 }' "/proc/${pid}/status" 2>/dev/null >> "${work}/rss" || true
  sleep 0.05
done
wait "${pid}" || true
printf '\nRSS (MB) of the %d-file --output-dir run at each tenth of its %d samples: ' "${largest}" "$(wc -l < "${work}/rss")"
awk '{ a[NR] = $1 } END { for (t = 1; t <= 10; t++) { i = int(NR * t / 10); if (i < 1) i = 1; printf "%.1f ", a[i] / 1024 } print "" }' "${work}/rss"
