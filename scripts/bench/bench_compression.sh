#!/usr/bin/env bash
# Reply and request compression: what zlib's levels give on the service's own payloads, and what
# gzip costs and saves end to end.
#
# On a game and a league save of --size-mb MB from scripts/gen/gen_game_save.py (seed 2020) and the
# readable JSON `archive-tool decode` writes for each:
#
# 1. Levels. Python's zlib module (the system zlib the server links, with the server's settings:
#    gzip wrapper, memLevel 8, default strategy) deflates each JSON and each binary plist at
#    levels 1, 3, 6 and 9: compressed size as % of the input, deflate MB/s and inflate MB/s (both
#    of the uncompressed bytes, MB = 10^6 bytes), best of 3 timings each.
# 2. End to end. archive-service on a free port of 127.0.0.1 (default flags); each round, both
#    shapes, three requests each, their order rotated from round to round:
#      plain       POST /v1/decode of the archive
#      gzip reply  the same with Accept-Encoding: gzip (the reply stays compressed: curl without
#                  --compressed, so the time is the server's and the wire's, not curl's inflate)
#      gzip body   the archive as `gzip -1 -c` made it, with Content-Encoding: gzip (plain reply)
#    each checked once first (the reply is archive-tool's JSON, inflated where it is gzip), then
#    timed with curl's %{time_total}, the archive read into the page cache before each request;
#    one untimed warm-up round first. Medians of --rounds rounds; bytes up and down as curl
#    counted them; ratios against plain.
#
# Prints the machine, zlib's version and the commit first, then Markdown tables. Uses the
# binaries in --bin-dir as they are; without it, a release build made first (SKIP_BUILD=1: the
# last one as it is). Takes about 70 s at the defaults on 2 cores (a third of it generating the
# saves), + the build.
#
# Needs: python3, curl, gzip
# Usage: scripts/bench/bench_compression.sh [--size-mb 20] [--rounds 7] [--bin-dir DIR]
#                                     [--seed 2020]
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
size_mb=20
rounds=7
seed=2020

usage() {
  echo "usage: $0 [--size-mb MB (20)] [--rounds N (7)] [--bin-dir DIR (default: release build)] [--seed N (2020)]"
}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --size-mb) size_mb="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --bin-dir) bin_dir_option "${2:-}"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
if ! [[ "${rounds}" =~ ^[0-9]+$ ]] || ((rounds < 3)); then
  echo "--rounds must be >= 3 (median)" >&2
  exit 2
fi

need_commands python3 curl gzip

cd "${repo}"
bins_prepare archive-tool archive-service
tool="${bin_dir}/archive-tool"
service="${bin_dir}/archive-service"

work_dir
at_exit server_stop

# --- The machine and the commit ------------------------------------------------------------
cpu="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
libz="$(ldd "${service}" | awk '/libz\.so/ { print $3; exit }')"
zver="$(python3 -c 'import zlib; print(zlib.ZLIB_RUNTIME_VERSION)')"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
sources="$(git log -1 --format=%h -- Sources Package.swift 2>/dev/null || echo unknown)"
if [[ -n "$(git status --porcelain -- Sources Package.swift 2>/dev/null)" ]]; then sources+=", modified since"; fi
echo "Reply compression benchmark: $(nproc) cores, ${cpu:-unknown CPU}; zlib ${zver} (Python),"
echo "server links ${libz:-?} ($(readlink -f "${libz:-/dev/null}" | sed 's/.*libz\.so\.//'));"
echo "commit ${commit} (Sources last changed at ${sources}; binaries from ${bin_dir});"
echo "saves of ${size_mb} MB, seed ${seed}; ${rounds} rounds end to end."
echo

# --- Inputs --------------------------------------------------------------------------------
shapes="game league"
for shape in ${shapes}; do
  save="${work}/${shape}.bin"
  log "generating ${shape} save (${size_mb} MB)"
  python3 scripts/gen/gen_game_save.py --size-mb "${size_mb}" --seed "${seed}" --shape "${shape}" --out "${save}" >&2
  "${tool}" decode "${save}" >"${save}.json" || die "archive-tool decode ${save} failed"
  gzip -1 -c "${save}" >"${save}.gz"
done

# --- 1. Levels -----------------------------------------------------------------------------
log "zlib levels 1, 3, 6, 9 (best of 3)"
python3 - "${work}" "${shapes}" <<'PY'
import sys, time, zlib
work, shapes = sys.argv[1], sys.argv[2].split()
LEVELS = (1, 3, 6, 9)

def deflate(data, level):
    # As the server's ReplyCompressor: gzip wrapper (windowBits 31), memLevel 8.
    c = zlib.compressobj(level, zlib.DEFLATED, 31, 8, zlib.Z_DEFAULT_STRATEGY)
    return c.compress(data) + c.flush()

def best(f, n=3):
    out, t = None, float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        out = f()
        t = min(t, time.perf_counter() - t0)
    return out, t

print("zlib levels (gzip wrapper, memLevel 8; MB/s of the uncompressed bytes, best of 3):\n")
print("| input | MB | level | compressed % | deflate MB/s | inflate MB/s | deflate time / level 1 |")
print("|---|---:|---:|---:|---:|---:|---:|")
for shape in shapes:
    for kind, path in (("JSON", f"{work}/{shape}.bin.json"), ("binary plist", f"{work}/{shape}.bin")):
        data = open(path, "rb").read()
        n = len(data)
        t1 = None
        for level in LEVELS:
            comp, td = best(lambda: deflate(data, level))
            back, ti = best(lambda: zlib.decompress(comp, 31))
            assert back == data
            t1 = t1 or td
            print(f"| {shape} {kind} | {n/1e6:.1f} | {level} | {100*len(comp)/n:.1f} | "
                  f"{n/1e6/td:.1f} | {n/1e6/ti:.1f} | {td/t1:.2f} |")
print()
PY

# --- 2. End to end -------------------------------------------------------------------------
port="$(free_port)"
log "starting ${service} on port ${port}"
server_start "${port}" "${work}/server.log" "${service}" --host 127.0.0.1 --port "${port}"
url="http://127.0.0.1:${port}"

# Each variant's reply must be what it claims: the JSON, compressed or not.
for shape in ${shapes}; do
  save="${work}/${shape}.bin"
  curl -fsS --data-binary @"${save}" "${url}/v1/decode" | cmp -s - "${save}.json" \
    || die "plain decode of ${shape} differs from archive-tool's JSON"
  enc="$(curl -fsS -D - -o "${work}/reply.gz" -H 'Accept-Encoding: gzip' --data-binary @"${save}" "${url}/v1/decode" \
    | tr -d '\r' | awk -F': ' 'tolower($1) == "content-encoding" { print $2 }')"
  [[ "${enc}" == gzip ]] || die "Accept-Encoding: gzip got Content-Encoding '${enc}'"
  gzip -dc "${work}/reply.gz" | cmp -s - "${save}.json" || die "gzip reply of ${shape} does not inflate to the JSON"
  curl -fsS -H 'Content-Encoding: gzip' --data-binary @"${save}.gz" "${url}/v1/decode" | cmp -s - "${save}.json" \
    || die "gzip body of ${shape} does not decode to the JSON"
done
rm -f "${work}/reply.gz"

variants="plain gzip-reply gzip-body"
rows="${work}/rows.tsv"
: >"${rows}"
# request SHAPE VARIANT ROUND: one timed POST; appends "shape variant round seconds up down"
request() {
  local shape=$1 variant=$2 round=$3 save="${work}/$1.bin" out
  local -a args=(-s -o /dev/null -w '%{http_code} %{time_total} %{size_upload} %{size_download}')
  case "${variant}" in
    plain) args+=(--data-binary @"${save}") ;;
    gzip-reply) args+=(-H 'Accept-Encoding: gzip' --data-binary @"${save}") ;;
    gzip-body) save="${save}.gz"; args+=(-H 'Content-Encoding: gzip' --data-binary @"${save}") ;;
  esac
  cat "${save}" >/dev/null
  out="$(curl "${args[@]}" "${url}/v1/decode")" || die "${variant} ${shape}: curl failed"
  read -r code secs up down <<<"${out}"
  [[ "${code}" == 200 ]] || die "${variant} ${shape}: HTTP ${code}"
  ((round > 0)) || return 0
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${shape}" "${variant}" "${round}" "${secs}" "${up}" "${down}" >>"${rows}"
}
log "end to end: ${rounds} rounds after a warm-up, port ${port}"
for round in $(seq 0 "${rounds}"); do
  # Rotate the order of the variants from round to round.
  read -r -a order <<<"${variants}"
  k=$((round % 3))
  order=("${order[@]:k}" "${order[@]:0:k}")
  for shape in ${shapes}; do
    for variant in "${order[@]}"; do
      request "${shape}" "${variant}" "${round}"
    done
  done
done

python3 - "${rows}" "${rounds}" <<'PY'
import sys, statistics
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
rounds = sys.argv[2]
data = {}
for shape, variant, _, secs, up, down in rows:
    data.setdefault((shape, variant), []).append((float(secs), int(up), int(down)))
label = {"plain": "plain", "gzip-reply": "`Accept-Encoding: gzip`",
         "gzip-body": "body `gzip -1`, `Content-Encoding: gzip`"}
print(f"POST /v1/decode end to end (curl time_total, median of {rounds} interleaved rounds; "
      "bytes as curl counted them; ratios against plain):\n")
print("| save | request | median s | min–max s | bytes up | bytes down | time / plain | up / plain | down / plain |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
shapes = []
for shape, _ in data:
    if shape not in shapes:
        shapes.append(shape)
for shape in shapes:
    base = data[(shape, "plain")]
    bt = statistics.median(s for s, _, _ in base)
    bu = statistics.median(u for _, u, _ in base)
    bd = statistics.median(d for _, _, d in base)
    for variant in ("plain", "gzip-reply", "gzip-body"):
        xs = data[(shape, variant)]
        t = statistics.median(s for s, _, _ in xs)
        u = statistics.median(u for _, u, _ in xs)
        d = statistics.median(d for _, _, d in xs)
        lo, hi = min(s for s, _, _ in xs), max(s for s, _, _ in xs)
        print(f"| {shape} | {label[variant]} | {t:.3f} | {lo:.3f}–{hi:.3f} | {u:,.0f} | {d:,.0f} | "
              f"{t/bt:.2f} | {u/bu:.3f} | {d/bd:.3f} |")
PY
