#!/bin/bash
# Codec benchmark, side by side in one run on the same files:
#   archive-tool decode FILE > FILE.json          (archive -> JSON)
#   plistutil -i FILE -o FILE.xml -f xml          (libplist: binary -> XML, less work)
#   archive-tool encode FILE.json > FILE.out.bin  (JSON -> archive)
# on game saves of ~5 MB and ~50 MB from scripts/gen/gen_game_save.py (deterministic).
#
# Time: hyperfine, median of --runs runs after one warm-up, the input read into the page cache
# right before each run (see measure()).
# Memory: peak RSS from one extra run under /usr/bin/time -v.
# Prints a markdown table (also written to bench-out/results.md): MB/s (MB = 10^6 bytes,
# of the command's input), peak RSS / input size, decode speed / plistutil speed, and
# linearity = (t_large / t_small) / (size_large / size_small), 1.00 = perfectly linear.
# Targets: decode >= 100 MB/s and >= 10x plistutil, encode >= 50 MB/s,
# peak memory <= 3x input, linear in size.
#
# Needs: swift, python3, hyperfine, /usr/bin/time, plistutil
#   apt-get install -y hyperfine time libplist-utils
# Usage: scripts/bench/bench_codec.sh [--sizes "5 50"] [--runs 3] [--bin-dir DIR] [--skip-build]
#   (--skip-build is SKIP_BUILD=1: the last static release build, as it is)
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
sizes="5 50"
runs=3
seed=2020
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sizes) sizes="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --bin-dir) bin_dir_option "${2:-}"; shift 2 ;;
    --skip-build) SKIP_BUILD=1; shift ;;
    *) echo "usage: $0 [--sizes \"5 50\"] [--runs N] [--bin-dir DIR] [--skip-build]" >&2; exit 2 ;;
  esac
done
((runs >= 3)) || { echo "--runs must be >= 3 (median)" >&2; exit 2; }

need_hint="apt-get install -y hyperfine time libplist-utils" need_commands python3 hyperfine plistutil /usr/bin/time

cd "${repo}"
# As the container ships it (Dockerfile): the Swift runtime linked in statically, which saves
# the dynamic linking of the runtime at every start (2.6 ms of a 9 ms run on a 450-byte archive).
bins_prepare --static archive-tool
tool="${bin_dir}/archive-tool"

out="${repo}/bench-out"
mkdir -p "${out}"
rows="${out}/rows.tsv"
: >"${rows}"

# measure NAME INPUT_FILE OUTPUT_FILE COMMAND: append "size name input_bytes median_s rss_kb"
measure() {
  local size=$1 name=$2 input=$3 output=$4 cmd=$5
  local json="${out}/hf-${name}-${size}.json"
  # The input is read into the page cache right before each run: this machine's memory
  # reclaim (DAMON pageout) evicts files idle for a second or two, and reading them back from
  # disk added 30-130 ms of noise to a 0.5 s conversion. Every command gets the same.
  timeout 900 hyperfine --style basic --warmup 1 --runs "${runs}" --export-json "${json}" \
    --prepare "cat '${input}' > /dev/null" \
    --command-name "${name}" "${cmd}" >&2 || die "${name} (${size} MB) failed or timed out: ${cmd}"
  [[ -s "${output}" ]] || die "${name} produced no output"
  local rss
  cat "${input}" > /dev/null
  timeout 900 /usr/bin/time -v -o "${out}/time-${name}-${size}.txt" bash -c "${cmd}" \
    || die "${name} (${size} MB) failed under /usr/bin/time"
  rss="$(awk -F': ' '/Maximum resident set size/ { print $2 }' "${out}/time-${name}-${size}.txt")"
  local median
  median="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "${json}")"
  printf '%s\t%s\t%s\t%s\t%s\n' "${size}" "${name}" "$(stat -c %s "${input}")" "${median}" "${rss}" >>"${rows}"
}

for size in ${sizes}; do
  save="${out}/game-${size}mb-s${seed}.bin"
  [[ -s "${save}" ]] || python3 scripts/gen/gen_game_save.py --size-mb "${size}" --seed "${seed}" --out "${save}"
  json="${save%.bin}.json"
  rm -f "${json}" "${save%.bin}.xml" "${save%.bin}.out.bin"
  measure "${size}" decode "${save}" "${json}" "'${tool}' decode '${save}' > '${json}'"
  measure "${size}" plistutil "${save}" "${save%.bin}.xml" "plistutil -i '${save}' -o '${save%.bin}.xml' -f xml"
  measure "${size}" encode "${json}" "${save%.bin}.out.bin" "'${tool}' encode '${json}' > '${save%.bin}.out.bin'"
  # Round trip: is the re-encoded archive the same object graph as the original?
  # (Byte-equal JSON is not expected: `$id`s are UIDs, and the encoder numbers objects in
  # its own order.)
  if "${tool}" compare "${save}" "${save%.bin}.out.bin" >/dev/null; then rt=equivalent; else rt=DIFFERENT; fi
  printf '%s\troundtrip\t0\t0\t%s\n' "${size}" "${rt}" >>"${rows}"
done

python3 - "${rows}" "${runs}" <<'PY' | tee "${out}/results.md"
import sys, platform, os, subprocess
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
runs = sys.argv[2]
res, rt = {}, {}
for size, name, nbytes, median, rss in rows:
    if name == "roundtrip":
        rt[size] = rss
        continue
    res[(size, name)] = (int(nbytes), float(median), int(rss) * 1024)
sizes = sorted({s for s, _ in res}, key=float)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
print(f"Codec benchmark: {os.cpu_count()} cores, {cpu}; median of {runs} runs (hyperfine), "
      "peak RSS from /usr/bin/time -v; MB = 10^6 bytes.\n")
print("| file | command | input MB | median s | MB/s | peak RSS MB | RSS / input |")
print("|---|---|---:|---:|---:|---:|---:|")
for s in sizes:
    for name in ("decode", "plistutil", "encode"):
        if (s, name) not in res:
            continue
        n, t, rss = res[(s, name)]
        label = {"decode": "archive-tool decode (bin → JSON)", "plistutil": "plistutil -f xml (bin → XML)",
                 "encode": "archive-tool encode (JSON → bin)"}[name]
        print(f"| game {s} MB | {label} | {n/1e6:.1f} | {t:.3f} | {n/1e6/t:.1f} | {rss/1e6:.1f} | {rss/n:.2f} |")
print()
for s in sizes:
    d, p = res.get((s, "decode")), res.get((s, "plistutil"))
    if d and p:
        print(f"- {s} MB: decode is **{p[1]/d[1]:.1f}×** plistutil's speed (same file); "
              f"archive-tool compare: encode(decode(archive)) {rt.get(s, '?')} to the original")
if len(sizes) >= 2:
    a, b = sizes[0], sizes[-1]
    for name in ("decode", "plistutil", "encode"):
        if (a, name) in res and (b, name) in res:
            (na, ta, ra), (nb, tb, rb) = res[(a, name)], res[(b, name)]
            print(f"- linearity {a}→{b} MB, {name}: time {(tb/ta)/(nb/na):.2f}, "
                  f"peak RSS {(rb/ra)/(nb/na):.2f} (1.00 = linear)")
PY
