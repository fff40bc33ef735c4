# shellcheck shell=bash
# Sourced by the scripts/ci checks that run archive-tool: sets `repo` (the repository root),
# `tool` (archive-tool in `--bin-dir DIR`, default .build/release, when given as "$@") and
# `work` (a scratch directory removed on exit).
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin_dir="${repo}/.build/release"
[[ "${1:-}" == "--bin-dir" ]] && bin_dir="$2"
tool="${bin_dir}/archive-tool"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
export repo tool work
