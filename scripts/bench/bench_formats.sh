#!/bin/bash
# The newer kinds through archive-tool: a large typedstream, and a plain property list whose
# entries hold nested payloads (an NSColor keyed archive, an attributed-string typedstream and an
# XML property list each), both from scripts/gen/gen_nested_documents.py. For each: decode (the
# plist without and with --nested) and encode back, median wall time of interleaved rounds
# (bench_interleaved.py), MB/s of the input, peak RSS (/usr/bin/time), and the output's size.
# Prints a markdown table.
#
# Needs: python3, /usr/bin/time (apt-get install -y time)
# Usage: scripts/bench/bench_formats.sh TOOL [--size-mb 20] [--rounds 9] [--out DIR]
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
[[ $# -ge 1 ]] || { sed -n 2,10p "${BASH_SOURCE[0]}" >&2; exit 2; }
tool="$(realpath "$1")"; shift
size=20
rounds=9
out="${repo}/bench-out/formats"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --size-mb) size="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "bench_formats: unknown option $1" >&2; exit 2 ;;
  esac
done
need_hint="apt-get install -y time" need_commands python3 /usr/bin/time
mkdir -p "${out}"

stream="${out}/typedstream-${size}mb.bin"
plist="${out}/nested-${size}mb.plist"
for kind in typedstream nested; do
  target="${stream}"; [[ "${kind}" == nested ]] && target="${plist}"
  if [[ ! -s "${target}" ]]; then
    python3 "${repo}/scripts/gen/gen_nested_documents.py" --kind "${kind}" --size-mb "${size}" --out "${out}/${kind}.gen.json"
    "${tool}" encode "${out}/${kind}.gen.json" -o "${target}"
  fi
done
"${tool}" decode "${stream}" >"${out}/typedstream.json"
"${tool}" decode "${plist}" >"${out}/plain.json"
"${tool}" decode --nested "${plist}" >"${out}/nested.json"

# name | input file | command
runs=(
  "typedstream decode|${stream}|${tool} decode ${stream}"
  "typedstream encode|${out}/typedstream.json|${tool} encode ${out}/typedstream.json -o ${out}/typedstream.out"
  "plist decode|${plist}|${tool} decode ${plist}"
  "plist decode --nested|${plist}|${tool} decode --nested ${plist}"
  "plist encode (payloads as base64)|${out}/plain.json|${tool} encode ${out}/plain.json -o ${out}/plain.out"
  "plist encode (payloads decoded)|${out}/nested.json|${tool} encode ${out}/nested.json -o ${out}/nested.out"
)
commands=()
for run in "${runs[@]}"; do commands+=("${run##*|}"); done
times="${out}/times.txt"
python3 "${repo}/scripts/bench/bench_interleaved.py" "${rounds}" "${plist}" "${commands[@]}" >"${times}"

printf '| run | input MB | median ms | input MB/s | peak RSS MB | output MB |\n|---|---:|---:|---:|---:|---:|\n'
for run in "${runs[@]}"; do
  name="${run%%|*}"; rest="${run#*|}"; input="${rest%%|*}"; command="${rest#*|}"
  ms="$(awk -v cmd="${command}" 'index($0, cmd) { print $2 }' "${times}")"
  # shellcheck disable=SC2086 # the command is split as the shell would
  /usr/bin/time -f '%M' -o "${out}/peak.txt" ${command} >"${out}/output.bin"
  output="${out}/output.bin"
  [[ "${command}" == *" -o "* ]] && output="${command##* -o }"
  awk -v name="${name}" -v in_bytes="$(stat -c %s "${input}")" -v ms="${ms}" -v kb="$(cat "${out}/peak.txt")" \
    -v out_bytes="$(stat -c %s "${output}")" \
    'BEGIN { printf "| %s | %.1f | %.0f | %.0f | %.0f | %.1f |\n", name, in_bytes / 1e6, ms, in_bytes / 1e6 / (ms / 1000), kb / 1024, out_bytes / 1e6 }'
done
