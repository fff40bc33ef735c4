#!/usr/bin/env bash
# Runs README.md's examples exactly as written, against a running archive-service, and checks
# every result the README states. CI runs it against its own server (.ci/run).
#
# What it runs: every line of the ```sh blocks under the heading "## Make a sample archive"
# (the sample save the examples use), then every line of the ```sh blocks under
# "## Try it with curl", in order. One command per line; blank lines and lines that begin with
# `#` are skipped. Either section without a command is a failure, as is a missing README.
#
# The port: the README's examples talk to localhost:8080. The only change made to a command is
# that `localhost:8080` becomes `localhost:PORT` (--port, default 8080); a command that still
# mentions port 8080 afterwards is refused rather than sent to some other server.
#
# Where it runs: in a scratch directory that mirrors the repository root, so the commands see
# what a reader at the root sees (Tests/, scripts/, ...: one symlink per top-level entry that git
# tracks), while the files they write (save.plist, save.json, ...) land in the scratch directory
# and are removed with it. Running in the root itself would overwrite, and then have to delete,
# a developer's own save.plist or save.json; the scratch copy leaves the tree as it was, whatever
# the README writes. A file the README writes may not have the name of a mirrored entry.
#
# Each command runs with `bash -o pipefail -c COMMAND` (60 s at most) and must exit 0. The
# comment after the first " # " on its line says what to check (the README explains the same
# convention to its readers):
#
#   # → writes FILE      FILE must be (re)written by this command (it is removed first), be
#                        non-empty and decode: a binary or XML plist must be a keyed archive
#                        ($archiver NSKeyedArchiver); anything else must be JSON that is not
#                        a problem document.
#   # → 422 SLUG         stdout must be a problem document with "status": 422 and "type"
#                        "urn:archive-service:problem:SLUG" (any status, any slug).
#   # → TEXT             stdout must be exactly TEXT followed by one newline (every reply of
#                        the service ends with one), where each `…` in TEXT stands for any
#                        text, newlines included, possibly none.
#   # anything else      prose; nothing is checked but the exit status and that stdout is
#                        not a problem document (curl -s exits 0 on a 4xx or 5xx).
#   no comment           the same.
#
# Usage: scripts/ci/readme-examples.sh [--port N] [--readme FILE] [--keep]
#   --readme FILE   check another copy of the README (default: README.md at the root)
#   --keep          keep the scratch directory and print where it is
# Needs bash, curl, python3 and git (and gzip and grep, which the README uses).
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
port=8080
readme="${repo}/README.md"
keep=0
usage() { echo "usage: $0 [--port N] [--readme FILE] [--keep]" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) [[ $# -ge 2 && "$2" =~ ^[0-9]+$ ]] || usage; port="$2"; shift 2 ;;
    --readme) [[ $# -ge 2 ]] || usage; readme="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done

[[ -f "${readme}" ]] || die "no README at ${readme}"

# The command lines of the ```sh blocks in the "## HEADING" section (up to the next "## ").
commands_under() {
  awk -v heading="## $1" '
    /^## / { section = (index($0, heading) == 1) }
    section && !inside && /^```sh[[:space:]]*$/ { inside = 1; next }
    inside && /^```/ { inside = 0; next }
    inside && NF && $1 !~ /^#/ { print }' "${readme}"
}

tmp="$(mktemp -d)"
work="${tmp}/root"
cleanup() {
  if ((keep)); then log "scratch directory kept: ${work}"; else rm -rf "${tmp}"; fi
}
at_exit cleanup
mkdir "${work}"

# The mirror of the repository root: its tracked top-level entries, as they are in the tree.
while IFS= read -r entry; do
  [[ -e "${repo}/${entry}" ]] && ln -s "${repo}/${entry}" "${work}/${entry}"
done < <(git -C "${repo}" ls-files | cut -d/ -f1 | sort -u)

# The checks, in Python: exact text with `…` wildcards, problem documents, written files.
cat >"${tmp}/check.py" <<'PYTHON'
import json, plistlib, re, sys

PROBLEM = "urn:archive-service:problem:"

def problem(data):
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) and str(doc.get("type", "")).startswith(PROBLEM) else None

def show(data, limit=600):
    text = repr(data[:limit])
    return text + (" … (%d bytes in all)" % len(data) if len(data) > limit else "")

def main():
    kind, path = sys.argv[1], sys.argv[2]
    with open(path, "rb") as f:
        data = f.read()
    if kind == "text":                      # argv[3]: a file holding the expected text
        with open(sys.argv[3], "rb") as f:
            expected = f.read().decode("utf-8") + "\n"
        pattern = ".*".join(re.escape(piece) for piece in expected.split("…"))
        got = data.decode("utf-8", "replace")
        if re.fullmatch(pattern, got, re.DOTALL) is None:
            return "expected %s\n  got      %s" % (show(expected), show(got))
    elif kind == "problem":                 # argv[3]: status, argv[4]: slug
        doc = problem(data)
        if doc is None:
            return "expected a problem document, got %s" % show(data)
        want = (int(sys.argv[3]), PROBLEM + sys.argv[4])
        if (doc.get("status"), doc.get("type")) != want:
            return "expected status %d, type %s; got %s" % (want[0], want[1], show(data))
    elif kind == "written":
        if not data:
            return "wrote an empty file"
        if data.startswith(b"bplist00") or data.lstrip().startswith(b"<?xml"):
            try:
                plist = plistlib.loads(data)
            except Exception as error:      # plistlib raises several kinds
                return "not a property list (%s): %s" % (error, show(data, 200))
            if not isinstance(plist, dict) or plist.get("$archiver") != "NSKeyedArchiver":
                return "a property list, but not a keyed archive"
        else:
            try:
                json.loads(data)
            except ValueError as error:
                return "neither a property list nor JSON (%s): %s" % (error, show(data, 200))
            if problem(data) is not None:
                return "wrote a problem document: %s" % show(data)
    elif kind == "not-problem":
        if problem(data) is not None:
            return "answered with a problem document: %s" % show(data)
    return None

failure = main()
if failure:
    print(failure)
    sys.exit(1)
PYTHON
check() { python3 "${tmp}/check.py" "$@" >"${tmp}/why" 2>&1; }

failures=0
ran=0
# run COMMAND-LINE: the command as written (port substituted), then its check.
run() {
  local line=$1 command comment="" expected="" name status slug why rc=0
  command="${line%% # *}"
  if [[ "${command}" != "${line}" ]]; then comment="${line#* # }"; fi
  command="${command%"${command##*[![:space:]]}"}"
  command="${command//localhost:8080/localhost:${port}}"
  ran=$((ran + 1))
  printf '$ %s\n' "${command}"
  if [[ "${command}" == *:8080* ]]; then
    why="mentions port 8080 other than as localhost:8080; only that form is pointed at --port"
  fi
  if [[ "${comment}" == "→ writes "* ]]; then
    name="${comment#→ writes }"
    name="${name%"${name##*[![:space:]]}"}"
    if [[ -z "${name}" || "${name}" == /* || "${name}" == *..* || "${name}" == *" "* ]]; then
      why="\"writes\" names no plain relative file: '${name}'"
    elif [[ -L "${work}/${name%%/*}" ]]; then
      why="writes ${name}, which is the repository's own (mirrored) ${name%%/*}"
    else
      rm -f "${work}/${name}"
    fi
  fi
  if [[ -z "${why:-}" ]]; then
    (cd "${work}" && timeout 60 bash -o pipefail -c "${command}") >"${tmp}/out" 2>"${tmp}/err" || rc=$?
    if ((rc != 0)); then
      why="exit status ${rc}"
      [[ -s "${tmp}/err" ]] && why+=$'\n'"  stderr: $(head -c 600 "${tmp}/err")"
      [[ -s "${tmp}/out" ]] && why+=$'\n'"  stdout: $(head -c 600 "${tmp}/out")"
    elif [[ -n "${name:-}" ]]; then
      if [[ ! -f "${work}/${name}" ]]; then why="did not write ${name}"
      elif ! check written "${work}/${name}"; then why="${name}: $(cat "${tmp}/why")"
      fi
    elif [[ "${comment}" =~ ^→\ ([1-5][0-9][0-9])\ ([a-z0-9-]+)[[:space:]]*$ ]]; then
      status="${BASH_REMATCH[1]}"
      slug="${BASH_REMATCH[2]}"
      check problem "${tmp}/out" "${status}" "${slug}" || why="$(cat "${tmp}/why")"
    elif [[ "${comment}" == "→ "* ]]; then
      expected="${comment#→ }"
      expected="${expected%"${expected##*[![:space:]]}"}"
      printf '%s' "${expected}" >"${tmp}/expected"
      check text "${tmp}/out" "${tmp}/expected" || why="$(cat "${tmp}/why")"
    else
      check not-problem "${tmp}/out" || why="$(cat "${tmp}/why")"
    fi
  fi
  if [[ -n "${why:-}" ]]; then
    failures=$((failures + 1))
    printf '  FAILED: %s\n' "${why}"
  else
    printf '  ok%s\n' "${comment:+ (${comment})}"
  fi
}

sample="$(commands_under "Make a sample archive")"
[[ -n "${sample}" ]] || die "no command in a \`\`\`sh block under \"## Make a sample archive\" in ${readme}"
examples="$(commands_under "Try it with curl")"
[[ -n "${examples}" ]] || die "no command in a \`\`\`sh block under \"## Try it with curl\" in ${readme}"

curl -fsS --max-time 5 -o /dev/null "http://localhost:${port}/healthz" \
  || die "no archive-service answering on localhost:${port} (start one, or pass --port)"

echo "== the sample (\"## Make a sample archive\"), in ${work}"
while IFS= read -r line; do run "${line}"; done <<<"${sample}"
echo "== the curl examples (\"## Try it with curl\"), against localhost:${port}"
while IFS= read -r line; do run "${line}"; done <<<"${examples}"

if ((failures > 0)); then
  die "${failures} of ${ran} README commands failed"
fi
echo "readme-examples: all ${ran} README commands ran as written and gave what the README says"
