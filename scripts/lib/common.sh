# shellcheck shell=bash
# What the scripts share; sourced, never run:
#   source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
#
# Sets `repo` (the repository root, absolute) and `script_name` (the script's file name without
# .sh, or what the caller set before sourcing), and defines:
#   log MESSAGE…        "NAME: MESSAGE" on stderr
#   die MESSAGE…        "NAME: FAIL: MESSAGE" on stderr, exit 1
#   need_commands CMD…  die naming the first CMD not on PATH (with $need_hint, if set)
#   at_exit CMD ARG…    run CMD ARG… when the script exits (last registered first), whatever the
#                       exit status; a script that uses it sets no EXIT trap of its own
#   work_dir            set `work` to a scratch directory, removed at exit
# and sources build.sh (where the binaries are: --bin-dir, SKIP_BUILD, bins_prepare) and
# server.sh (free_port, server_start, wait_healthz, server_stop).
# shellcheck disable=SC2034  # repo, script_name and work are for the scripts that source this

[[ -n "${_archive_scripts_lib:-}" ]] && return 0
_archive_scripts_lib=1

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
script_name="${script_name:-$(basename "${0%.sh}")}"
# Where the script was started: relative paths given on its command line are relative to it.
start_dir="$(pwd)"

log() { echo "${script_name}: $*" >&2; }
die() {
  echo "${script_name}: FAIL: $*" >&2
  exit 1
}

need_commands() {
  local command
  for command in "$@"; do
    command -v "${command}" >/dev/null || die "${command} missing${need_hint:+ (${need_hint})}"
  done
}

_exit_actions=()
_run_exit_actions() {
  local status=$? index
  for ((index = ${#_exit_actions[@]} - 1; index >= 0; index--)); do
    eval "${_exit_actions[index]}" || true
  done
  return "${status}"
}
at_exit() {
  if ((${#_exit_actions[@]} == 0)); then
    trap _run_exit_actions EXIT
    # A signal ends the script through exit, so the actions run then too.
    trap 'exit 130' INT
    trap 'exit 143' TERM
  fi
  local quoted
  quoted="$(printf '%q ' "$@")"
  _exit_actions+=("${quoted}")
}

# work_dir: sets `work` to a new scratch directory (not in a command substitution: its subshell
# would register the removal in vain).
work_dir() {
  work="$(mktemp -d "${TMPDIR:-/tmp}/${script_name}.XXXXXX")"
  at_exit rm -rf "${work}"
}

# absolute PATH: PATH made absolute against the directory the script was started in.
absolute() {
  case "$1" in
    /*) echo "$1" ;;
    *) echo "${start_dir}/$1" ;;
  esac
}

# shellcheck source=scripts/lib/build.sh
source "${repo}/scripts/lib/build.sh"
# shellcheck source=scripts/lib/server.sh
source "${repo}/scripts/lib/server.sh"
