#!/usr/bin/env bash
# Two archive-tool builds give byte-identical output: every fixture under Tests/Fixtures and
# ../ (all files) plus generated game and league saves (binary and XML), a typedstream and a
# plist of nested payloads, each decoded in every view and option (readable, raw, --pretty,
# --nested, --exact-numbers, --max-depth 4, summary with and without --nested), the readable
# JSON encoded back (binary and XML), and compare of each file with itself. Exit statuses
# and stderr must match too. For a change meant to keep behaviour (a redesign step): run the
# build before and after it.
#
# Usage: scripts/bench/compare_tools.sh BEFORE_TOOL AFTER_TOOL [FIXTURE_DIR…]
# Needs python3. About a minute on two cores.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[[ $# -ge 2 ]] || { sed -n 2,10p "${BASH_SOURCE[0]}" >&2; exit 2; }
before="$(realpath "$1")"; after="$(realpath "$2")"; shift 2
dirs=("${repo}/Tests/Fixtures" "$@")
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

gen="${repo}/scripts/gen"
mkdir -p "${work}/generated"
python3 "${gen}/gen_game_save.py" --size-mb 2 --seed 11 --out "${work}/generated/game.bplist"
python3 "${gen}/gen_game_save.py" --size-mb 2 --seed 12 --shape league --out "${work}/generated/league.bplist"
python3 "${gen}/gen_game_save.py" --teams 20 --seed 13 --format xml --out "${work}/generated/game.xml"
python3 "${gen}/gen_nested_documents.py" --kind typedstream --size-mb 1 --seed 14 --out "${work}/stream.json" >/dev/null
python3 "${gen}/gen_nested_documents.py" --kind nested --size-mb 1 --seed 15 --out "${work}/nested.json" >/dev/null
"${before}" encode "${work}/stream.json" -o "${work}/generated/stream.typedstream"
"${before}" encode "${work}/nested.json" -o "${work}/generated/nested.bplist"

files=()
while IFS= read -r -d '' file; do files+=("${file}"); done < <(find "${dirs[@]}" "${work}/generated" -type f ! -name '*.tsv' ! -name '*.md' ! -name '*.events' -print0 | sort -z)

# run TOOL OUT ARGS…: stdout to OUT, stderr and the exit status to OUT.err.
run() {
  local tool=$1 out=$2; shift 2
  local rc=0
  "${tool}" "$@" >"${out}" 2>"${out}.err" || rc=$?
  echo "exit ${rc}" >>"${out}.err"
}

compared=0
differ=0
for file in "${files[@]}"; do
  for options in "decode" "decode --raw" "decode --pretty" "decode --nested" "decode --exact-numbers" "decode --max-depth 4" "summary" "summary --nested"; do
    # shellcheck disable=SC2086 # options is a verb and its flags
    run "${before}" "${work}/a" ${options} "${file}"
    # shellcheck disable=SC2086
    run "${after}" "${work}/b" ${options} "${file}"
    compared=$((compared + 1))
    if ! cmp -s "${work}/a" "${work}/b" || ! cmp -s "${work}/a.err" "${work}/b.err"; then
      differ=$((differ + 1))
      echo "DIFFER ${options} ${file#"${repo}/"}"
    fi
    if [[ "${options}" == "decode" || "${options}" == "decode --nested" ]] && grep -q '^exit 0$' "${work}/a.err"; then
      cp "${work}/a" "${work}/doc.json"
      for format in "" "--xml"; do
        # shellcheck disable=SC2086 # format is one flag or none
        run "${before}" "${work}/a" encode "${work}/doc.json" ${format}
        # shellcheck disable=SC2086
        run "${after}" "${work}/b" encode "${work}/doc.json" ${format}
        compared=$((compared + 1))
        if ! cmp -s "${work}/a" "${work}/b" || ! cmp -s "${work}/a.err" "${work}/b.err"; then
          differ=$((differ + 1))
          echo "DIFFER encode ${format} of ${options} ${file#"${repo}/"}"
        fi
      done
    fi
  done
  run "${before}" "${work}/a" compare "${file}" "${file}"
  run "${after}" "${work}/b" compare "${file}" "${file}"
  compared=$((compared + 1))
  if ! cmp -s "${work}/a" "${work}/b" || ! cmp -s "${work}/a.err" "${work}/b.err"; then
    differ=$((differ + 1))
    echo "DIFFER compare ${file#"${repo}/"}"
  fi
done
echo "${#files[@]} files, ${compared} outputs compared, ${differ} differ"
[[ ${differ} -eq 0 ]]
