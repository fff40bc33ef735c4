#!/usr/bin/env bash
# Measures what one decode holds in the service against what the memory budget reserved for
# it, on archives whose cost is set by their counts of objects and entries
# (scripts/gen/gen_dense_archives.py) and on generated game saves. Per archive: a fresh release
# server (one worker, an 8 GiB budget so nothing is refused), one decode, then the growth of
# its peak RSS (VmHWM) and the budget's high-water mark. The budget holds where every
# growth is below its reservation. Stops by itself (about a minute after the build).
#
# Usage: scripts/bench/decode_memory.sh      Environment: PORT (default 28091), SKIP_BUILD=1, N.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${PORT:-28091}"
OUT=bench-out/decode-memory
mkdir -p "$OUT"
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    swift build -c release --product archive-service >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
BIN="$(swift build -c release --show-bin-path)/archive-service"
[[ -f "$OUT/shared.xml" ]] || python3 scripts/gen/gen_dense_archives.py "$OUT" "${N:-1000000}"
for shape in game league; do
    [[ -f "$OUT/save-$shape.bplist" ]] || python3 scripts/gen/gen_game_save.py --size-mb 30 --shape "$shape" --out "$OUT/save-$shape.bplist" >/dev/null
done
[[ -f "$OUT/save-game.xml" ]] || python3 scripts/gen/gen_game_save.py --size-mb 30 --format xml --out "$OUT/save-game.xml" >/dev/null

hwm() { awk '/VmHWM/{print $2 * 1024}' "/proc/$1/status"; }
printf '| archive | body MB | status | reply MB | RSS growth MB | reserved (high water) MB | growth / reserved |\n|---|---|---|---|---|---|---|\n'
status=0
for file in ints.bplist strings.bplist instances.bplist cycle.bplist shared.bplist shared.xml bigstring.bplist \
            save-game.bplist save-league.bplist save-game.xml; do
    "$BIN" --host 127.0.0.1 --port "$PORT" --workers 1 --event-loops 1 --max-body-size 200M \
        --memory-budget 8G --log-level error >"$OUT/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.05; done
    base=$(hwm "$pid")
    read -r code reply < <(curl -s -o /dev/null -w '%{http_code} %{size_download}\n' --data-binary "@$OUT/$file" \
        "http://127.0.0.1:$PORT/v1/decode")
    peak=$(hwm "$pid")
    reserved=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^archive_memory_reserved_high_water_bytes/{print $2}')
    kill "$pid"; wait "$pid" 2>/dev/null || true
    body=$(stat -c %s "$OUT/$file")
    awk -v f="$file" -v b="$body" -v c="$code" -v r="$reply" -v g="$((peak - base))" -v h="$reserved" \
        'BEGIN { printf "| %s | %.1f | %s | %.1f | %.1f | %.1f | %.2f |\n", f, b/1e6, c, r/1e6, g/1e6, h/1e6, g/h }'
    ((peak - base <= reserved)) || status=1
done
exit "$status"
