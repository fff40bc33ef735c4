#!/usr/bin/env bash
# Decode → encode → decode of an unchanged document gives byte-identical JSON for generated
# league saves (small and 40 MB, binary and XML, plain, --max-depth 7 and --exact-numbers), so
# a save's JSON can be kept in version control: only what a person edits shows in a diff.
# (Tests/ArchiveCodecTests/StableRoundTripTests.swift checks every fixture the same way.)
#
# Usage: scripts/ci/check_stable_round_trip.sh [--bin-dir DIR]   (default: a release build, made first; SKIP_BUILD=1)
# Needs python3. Bounded: about a minute on two cores.
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
bin_dir_arguments "$@"
bins_prepare archive-tool
tool="${bin_dir}/archive-tool"
work_dir

python3 "${repo}/scripts/gen/gen_game_save.py" --teams 30 --out "${work}/small.bplist" 2>/dev/null
python3 "${repo}/scripts/gen/gen_game_save.py" --teams 30 --format xml --out "${work}/small.xml" 2>/dev/null
python3 "${repo}/scripts/gen/gen_game_save.py" --size-mb 40 --out "${work}/large.bplist" 2>/dev/null

for save in small.bplist small.xml large.bplist; do
  for options in "" "--max-depth 7" "--exact-numbers"; do
    # shellcheck disable=SC2086 # options is a list of flags
    "${tool}" decode ${options} "${work}/${save}" >"${work}/first.json"
    "${tool}" encode "${work}/first.json" -o "${work}/again.bplist"
    # shellcheck disable=SC2086
    "${tool}" decode ${options} "${work}/again.bplist" >"${work}/second.json"
    if ! cmp -s "${work}/first.json" "${work}/second.json"; then
      die "${save} ${options}: the JSON changed on an unchanged round trip ($(diff <(tr ',' '\n' <"${work}/first.json") <(tr ',' '\n' <"${work}/second.json") | wc -l) lines)"
    fi
    echo "ok ${save} ${options:-(default)}: $(wc -c <"${work}/first.json") bytes of JSON, identical after decode → encode → decode"
  done
done
