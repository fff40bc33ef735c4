#!/usr/bin/env bash
# Measures what conversions hold in the service against what the memory budget reserved for
# them, for every format and direction: decodes of archives whose cost is set by their counts of
# objects and entries (scripts/gen/gen_dense_archives.py) and of generated game saves; encodes of
# a save's JSON to binary and XML and of a document of empty arrays; summaries; nested decodes
# of a plist whose one data value is referenced at every key; typedstreams both ways. Per row: a
# fresh release server (one worker per request of the row, an 8 GiB budget so nothing is
# refused), the row's requests at once (one, then the worst cases two at once), then the growth
# of its peak RSS (VmHWM) and the budget's high-water mark. The budget holds where every growth
# is below its reservation. Stops by itself (a few minutes after the build).
#
# Usage: scripts/bench/conversion_memory.sh [--bin-dir DIR]
#   Environment: PORT (default 28091), SKIP_BUILD=1 (no build: the last release build), N.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
bin_dir_arguments "$@"
cd "${repo}"
PORT="${PORT:-28091}"
OUT=bench-out/conversion-memory
mkdir -p "$OUT"
bins_prepare archive-service archive-tool
BIN="${bin_dir}"
at_exit server_stop
[[ -f "$OUT/shared.xml" ]] || python3 scripts/gen/gen_dense_archives.py "$OUT" "${N:-1000000}"
for shape in game league; do
    [[ -f "$OUT/save-$shape.bplist" ]] || python3 scripts/gen/gen_game_save.py --size-mb 30 --shape "$shape" --out "$OUT/save-$shape.bplist" >/dev/null
done
[[ -f "$OUT/save-game.xml" ]] || python3 scripts/gen/gen_game_save.py --size-mb 30 --format xml --out "$OUT/save-game.xml" >/dev/null
[[ -f "$OUT/save-game.json" ]] || "$BIN/archive-tool" decode "$OUT/save-game.bplist" >"$OUT/save-game.json"
[[ -f "$OUT/empties.json" ]] || python3 -c "import sys; sys.stdout.write('{\"\$propertyList\":[' + ','.join(['[]'] * 2_000_000) + ']}')" >"$OUT/empties.json"
[[ -f "$OUT/repeated.bplist" ]] || python3 -c "
import os, plistlib, sys
blob = os.urandom(30 << 20)
sys.stdout.buffer.write(plistlib.dumps({f'k{i}': blob for i in range(16)}, fmt=plistlib.FMT_BINARY))" >"$OUT/repeated.bplist"
# Typedstreams both ways: a readable NSDictionary of a million keys (the encoder's worst shape
# per value) and a million C strings, encoded; the first one's stream decoded.
for shape in dictionary-json cstrings-json; do
    [[ -f "$OUT/$shape.json" ]] || python3 scripts/gen/gen_typedstream_shapes.py --shape "$shape" --count 1000000 --out "$OUT/$shape.json"
done
[[ -f "$OUT/dictionary.typedstream" ]] || "$BIN/archive-tool" encode "$OUT/dictionary-json.json" -o "$OUT/dictionary.typedstream"
typedstreams=("encode dictionary-json.json" "encode cstrings-json.json" "decode dictionary.typedstream" "summary dictionary.typedstream")
hwm() { awk '/VmHWM/{print $2 * 1024}' "/proc/$1/status"; }
# request ROUTE FILE: one conversion; prints its status and reply size.
request() {
    local route=$1 file=$2 path type=()
    case "$route" in
        decode) path=/v1/decode ;;
        summary) path='/v1/decode?view=summary' ;;
        nested) path='/v1/decode?nested=1' ;;
        encode) path=/v1/encode; type=(-H 'Content-Type: application/json') ;;
        encode-xml) path='/v1/encode?format=xml'; type=(-H 'Content-Type: application/json') ;;
    esac
    curl -s -o /dev/null -w '%{http_code}:%{size_download} ' "${type[@]}" --data-binary "@$OUT/$file" "http://127.0.0.1:$PORT$path"
}
printf '| route | input | at once | body MB | statuses:reply bytes | RSS growth MB | reserved (high water) MB | growth / reserved |\n|---|---|---|---|---|---|---|---|\n'
status=0
rows=(
    "decode ints.bplist" "decode strings.bplist" "decode instances.bplist" "decode cycle.bplist" "decode shared.bplist"
    "decode shared.xml" "decode bigstring.bplist" "decode save-game.bplist" "decode save-league.bplist" "decode save-game.xml"
    "encode save-game.json" "encode-xml save-game.json" "encode-xml empties.json"
    "summary save-league.bplist" "summary shared.bplist" "nested repeated.bplist"
    "${typedstreams[@]}"
)
# The worst cases of each direction, two at once.
twice=("decode shared.bplist" "decode save-league.bplist" "encode-xml empties.json" "encode save-game.json"
    "summary shared.bplist" "nested repeated.bplist" "encode dictionary-json.json" "decode dictionary.typedstream")
run_row() {
    local route=$1 file=$2 count=$3
    server_start "$PORT" "$OUT/server.log" "$BIN/archive-service" --host 127.0.0.1 --port "$PORT" --workers "$count" \
        --event-loops 1 --max-body-size 200M --memory-budget 8G --conversion-timeout 600 --log-level error
    local pid=$server_pid
    local base seen peak reserved body
    base=$(hwm "$pid")
    seen=$(for _ in $(seq "$count"); do request "$route" "$file" & done; wait)
    peak=$(hwm "$pid")
    reserved=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^archive_memory_reserved_high_water_bytes/{print $2}')
    server_stop || true
    body=$(stat -c %s "$OUT/$file")
    awk -v r="$route" -v f="$file" -v n="$count" -v b="$body" -v s="$seen" -v g="$((peak - base))" -v h="$reserved" \
        'BEGIN { printf "| %s | %s | %d | %.1f | %s | %.1f | %.1f | %.2f |\n", r, f, n, b/1e6, s, g/1e6, h/1e6, g/h }'
    ((peak - base <= reserved)) || status=1
}
for row in "${rows[@]}"; do read -r route file <<<"$row"; run_row "$route" "$file" 1; done
for row in "${twice[@]}"; do read -r route file <<<"$row"; run_row "$route" "$file" 2; done
exit "$status"
