#!/usr/bin/env bash
# `decode --exact-numbers` output keeps its meaning through the JSON tools people edit it with:
# every fixture, a generated league save and an archive of tricky numbers (1.0, -0.0, 2^53 as
# a real, 2^63, 1e300, a referenced 5.0) go decode --exact-numbers → tool → encode, and
# `archive-tool compare` with the original holds. The tools: jq (`jq .`), Python's json
# (load and dump) and node (`JSON.parse`/`JSON.stringify`) where it is installed. Without
# --exact-numbers the tricky archive must NOT survive jq (the check can fail).
#
# Usage: scripts/ci/check_exact_numbers.sh [--bin-dir DIR]   (default: a release build, made first; SKIP_BUILD=1)
# Needs python3 and jq; node is optional. Bounded: a few seconds per tool.
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
bin_dir_arguments "$@"
bins_prepare archive-tool
tool="${bin_dir}/archive-tool"
work_dir

python3 "${repo}/scripts/gen/gen_game_save.py" --teams 30 --out "${work}/league.bplist" 2>/dev/null
python3 - "${work}/tricky.bplist" <<'PY'
import plistlib, sys
objects = ["$null",
           {"$class": plistlib.UID(2), "a": 1.0, "b": -0.0, "c": 9007199254740992.0, "d": -2**63,
            "e": 1e300, "f": 0.1, "g": plistlib.UID(3), "h": 2**63, "i": [2.0, -0.0]},
           {"$classname": "Numbers", "$classes": ["Numbers", "NSObject"]},
           5.0]
archive = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": plistlib.UID(1)}, "$objects": objects}
with open(sys.argv[1], "wb") as out:
    plistlib.dump(archive, out, fmt=plistlib.FMT_BINARY)
PY

inputs=("${work}/league.bplist" "${work}/tricky.bplist")
while IFS= read -r -d '' file; do inputs+=("${file}"); done < <(
  find "${repo}/Tests/Fixtures/apple" "${repo}/Tests/Fixtures/public/keyed-archive" "${repo}/Tests/Fixtures/public/plain-plist" \
    "${repo}/Tests/Fixtures/public/plain-plist-with-nested-archive" "${repo}/Tests/Fixtures/public/typedstream" \
    -maxdepth 1 -type f ! -name '*.tsv' ! -name '*.md' -print0 | sort -z)

tools=(jq python)
command -v node >/dev/null && tools+=(node)

through() {
  case "$1" in
    jq) jq . ;;
    python) python3 -c 'import json, sys; json.dump(json.load(sys.stdin), sys.stdout)' ;;
    node) node -e 'let s = ""; process.stdin.on("data", d => s += d).on("end", () => process.stdout.write(JSON.stringify(JSON.parse(s))))' ;;
  esac
}

checked=0
for input in "${inputs[@]}"; do
  "${tool}" decode --exact-numbers "${input}" >"${work}/doc.json" 2>/dev/null || continue
  for name in "${tools[@]}"; do
    through "${name}" <"${work}/doc.json" >"${work}/edited.json"
    "${tool}" encode "${work}/edited.json" -o "${work}/back.bin"
    if ! "${tool}" compare "${input}" "${work}/back.bin" >"${work}/difference.txt"; then
      die "${input##*/} through ${name}: $(head -c 300 "${work}/difference.txt")"
    fi
    checked=$((checked + 1))
  done
done
echo "ok ${checked} round trips (${#inputs[@]} inputs, those that decode, × ${tools[*]}) keep their meaning with --exact-numbers"

"${tool}" decode "${work}/tricky.bplist" | jq . >"${work}/plain.json"
if "${tool}" encode "${work}/plain.json" -o "${work}/plain.bin" 2>/dev/null && "${tool}" compare "${work}/tricky.bplist" "${work}/plain.bin" >/dev/null; then
  die "without --exact-numbers the tricky numbers survived jq: the check cannot tell"
fi
echo "ok without --exact-numbers jq changes the tricky numbers (as expected)"
