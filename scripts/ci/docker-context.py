#!/usr/bin/env python3
"""The Docker build context as Docker computes it, checked against the Dockerfile.

Docker (BuildKit, the default builder) sends the build context filtered by .dockerignore; a
COPY of a file the filter leaves out fails only at `docker build` time. This tool computes the
same context without Docker and checks it:

  context   .dockerignore read as Docker reads it (moby/patternmatcher): a line starting with
            # is a comment; each pattern is trimmed, cleaned (filepath.Clean) and stripped of a
            leading /; patterns are Go filepath.Match syntax plus ** (any number of
            directories); ! makes an exception; the last rule that matches a path decides, and
            a rule matching a directory matches everything in it. The walk is BuildKit's
            (tonistiigi/fsutil): an excluded directory is skipped wholesale unless an
            exception could match inside it, and the directories above an admitted file are
            sent with it. Symbolic links are sent as links, never followed. <Dockerfile>.dockerignore
            beside the Dockerfile replaces .dockerignore, as in BuildKit. The Dockerfile and
            .dockerignore are always sent (the builder reads them) but COPY cannot take them
            when the patterns exclude them.
  check     every COPY/ADD source of every stage (not --from=, not URLs, not heredocs) and every
            RUN --mount=type=bind source must be in the filtered context; failures name the
            Dockerfile line and the .dockerignore rule that excluded the file. Every symbolic
            link a COPY puts into a stage must resolve, at each later RUN, to something the
            stage's own COPYs put there: a COPY of a directory copies its links as links, so a
            link's target must be copied to the right relative place too.
  materialise DIR
            writes the filtered context (files, modes, links as links) into DIR.
  replay-build WORK
            checks, materialises the context into WORK/context, and replays the stages the
            last stage copies from (COPY --from=NAME) into WORK/stages/NAME, a directory
            standing in for the stage's root: WORKDIR, ARG, ENV and COPY as the Dockerfile says,
            each RUN verbatim through /bin/sh -c in a chroot of that directory (as root, in a
            mount namespace of its own) in which the host's /usr, /etc and /opt, read-only,
            stand in for the base image, so the host toolchain builds. A RUN made only of
            apt-get update/install and removing /var/lib/apt/lists is not run: every package it
            installs must be installed on the host instead. Any other instruction the replay
            cannot reproduce fails it. Afterwards every file the last stage copies from the
            replayed stage must exist.
  list      prints the filtered context, one path a line.

Usage:
  scripts/ci/docker-context.py [check|list] [--context DIR] [--dockerfile F] [--dockerignore F]
  scripts/ci/docker-context.py materialise DIR [...]
  scripts/ci/docker-context.py replay-build WORK [--stage NAME] [--build-arg K=V]... [...]
  scripts/ci/docker-context.py --self-test

Python 3 standard library only. Exit status 0 = OK, 1 = a check failed, 2 = usage.
"""

import argparse
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time

PROG = "docker-context"


class Failure(Exception):
    """A check failed: the message says what, where, and why."""


class BadPattern(Exception):
    """A .dockerignore pattern Docker rejects (filepath.ErrBadPattern and friends)."""


def log(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Paths and patterns (Go's path/filepath and moby/patternmatcher semantics, '/' separators)
# ---------------------------------------------------------------------------------------------


def go_clean(p):
    """Go's filepath.Clean on a slash path."""
    if p == "":
        return "."
    rooted = p.startswith("/")
    out = []
    for seg in p.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if out and out[-1] != "..":
                out.pop()
            elif not rooted:
                out.append("..")
            continue
        out.append(seg)
    s = "/".join(out)
    if rooted:
        return "/" + s
    return s or "."


def go_match_syntax(pattern):
    """Raise BadPattern where Go's filepath.Match(pattern, ...) returns ErrBadPattern.

    Grammar: '*' | '?' | '[' ['^'] { range } ']' | '\\' c | c, with a range being c, '\\' c
    or lo '-' hi, where a bare c is not '\\', '-' or ']' and a class is not empty."""
    i, n = 0, len(pattern)

    def range_char(j):
        if j >= n:
            raise BadPattern(pattern)
        c = pattern[j]
        if c in "-]":
            raise BadPattern(pattern)
        if c == "\\":
            if j + 1 >= n:
                raise BadPattern(pattern)
            return j + 2
        return j + 1

    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                raise BadPattern(pattern)
            i += 2
        elif c == "[":
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            count = 0
            while True:
                if i >= n:
                    raise BadPattern(pattern)
                if pattern[i] == "]" and count > 0:
                    i += 1
                    break
                i = range_char(i)
                if i < n and pattern[i] == "-":
                    i = range_char(i + 1)
                count += 1
        else:
            i += 1


def go_match_regex(pattern):
    """A regular expression equal to Go's filepath.Match(pattern, name) ('*' and '?' stop at
    '/'; classes with '^' negation; '\\' escapes). Used for COPY source wildcards."""
    go_match_syntax(pattern)
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\":
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "[":
            j = i + 1
            cls = "["
            if pattern[j] == "^":
                cls += "^"
                j += 1
            first = True
            while first or pattern[j] != "]":
                first = False
                ch = pattern[j]
                if ch == "\\":
                    j += 1
                    ch = pattern[j]
                cls += re.escape(ch) if ch != "-" else "\\-"
                j += 1
                if pattern[j] == "-":
                    j += 1
                    hi = pattern[j]
                    if hi == "\\":
                        j += 1
                        hi = pattern[j]
                    cls += "-" + re.escape(hi)
                    j += 1
            out.append(cls + "]")
            i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def has_wildcards(p):
    return any(c in p for c in "*?[\\")


EXACT, PREFIX, SUFFIX, REGEXP = "exact", "prefix", "suffix", "regexp"


class Pattern:
    """One .dockerignore rule as patternmatcher.New and Pattern.compile make it."""

    def __init__(self, text, line):
        self.line = line  # .dockerignore line number (for messages)
        self.source = text
        p = go_clean(text.strip())
        self.exclusion = p.startswith("!")
        if self.exclusion:
            if len(p) == 1:
                raise BadPattern('illegal exclusion pattern: "!"')
            p = p[1:]
        go_match_syntax(p)
        self.cleaned = p
        self.kind, self.regex = self._compile(p)

    @staticmethod
    def _compile(p):
        reg, kind = "^", EXACT
        k, n, i = 0, len(p), 0
        while k < n:
            ch = p[k]
            k += 1
            if ch == "*":
                if k < n and p[k] == "*":
                    k += 1
                    if k < n and p[k] == "/":
                        k += 1
                    if k >= n:
                        if kind == EXACT:
                            kind = PREFIX
                        else:
                            reg += ".*"
                            kind = REGEXP
                    else:
                        reg += "(.*/)?"
                        kind = REGEXP
                    if i == 0:
                        kind = SUFFIX
                else:
                    reg += "[^/]*"
                    kind = REGEXP
            elif ch == "?":
                reg += "[^/]"
                kind = REGEXP
            elif ch in ".+()|{}$":
                reg += "\\" + ch
            elif ch == "\\":
                if k < n:
                    reg += "\\" + p[k]
                    k += 1
                    kind = REGEXP
                else:
                    reg += "\\"
            elif ch in "[]":
                reg += ch
                kind = REGEXP
            else:
                reg += ch
            i += 1
        if kind != REGEXP:
            return kind, None
        try:
            return kind, re.compile(reg + r"\Z")
        except re.error as e:
            raise BadPattern(f"{p}: {e}") from None

    def match(self, path):
        if self.kind == EXACT:
            return path == self.cleaned
        if self.kind == PREFIX:
            return path.startswith(self.cleaned[:-2])
        if self.kind == SUFFIX:
            suffix = self.cleaned[2:]
            if path.endswith(suffix):
                return True
            return suffix.startswith("/") and path == suffix[1:]
        return self.regex.match(path) is not None

    def without_trailing_glob(self):
        p = self.cleaned
        for tail in ("/**", "/*"):
            if p.endswith(tail):
                p = p[: -len(tail)]
        return p

    def __str__(self):
        return ("!" if self.exclusion else "") + self.cleaned


def read_ignore(text):
    """ignorefile.ReadAll: (line number, pattern) pairs, '!' kept as a prefix."""
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.endswith("\r"):
            line = line[:-1]
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if line.startswith("#"):
            continue
        p = line.strip()
        if not p:
            continue
        invert = p.startswith("!")
        if invert:
            p = p[1:].strip()
        if p:
            p = go_clean(p)
            if len(p) > 1 and p.startswith("/"):
                p = p[1:]
        out.append((number, ("!" if invert else "") + p))
    return out


class Matcher:
    """patternmatcher.PatternMatcher: which rule decides whether a path is excluded."""

    def __init__(self, rules):
        self.patterns = [Pattern(p, line) for line, p in rules if p.strip()]
        self.exclusions = any(p.exclusion for p in self.patterns)

    def matches_or_parent_matches(self, path):
        """(excluded, deciding pattern or None) for a slash path relative to the context."""
        matched, decided = False, None
        parent = os.path.dirname(path) or "."
        parent_dirs = parent.split("/")
        for pat in self.patterns:
            if pat.exclusion != matched:
                continue
            m = pat.match(path)
            if not m and parent != ".":
                for i in range(len(parent_dirs)):
                    if pat.match("/".join(parent_dirs[: i + 1])):
                        m = True
                        break
            if m:
                matched, decided = not pat.exclusion, pat
        return matched, decided

    def matches_using_parent_results(self, path, parent_info):
        """MatchesUsingParentResults: (excluded, per-pattern info for children, deciding)."""
        matched, decided = False, None
        info = []
        for idx, pat in enumerate(self.patterns):
            m = parent_info[idx] if parent_info else False
            if not m:
                if pat.exclusion != matched:
                    info.append(False)
                    continue
                m = pat.match(path)
                if not m and not parent_info:
                    parent = os.path.dirname(path)
                    if parent:
                        dirs = parent.split("/")
                        for i in range(len(dirs)):
                            if pat.match("/".join(dirs[: i + 1])):
                                m = True
                                break
            info.append(m)
            if m:
                matched, decided = not pat.exclusion, pat
        return matched, info, decided


# ---------------------------------------------------------------------------------------------
# The context
# ---------------------------------------------------------------------------------------------


class Entry:
    def __init__(self, rel, kind, mode, target=None, builder_only=False):
        self.rel, self.kind, self.mode, self.target = rel, kind, mode, target
        self.builder_only = builder_only  # sent for the builder, not COPY-able


class Context:
    def __init__(self, root, dockerfile, dockerignore=None):
        self.root = os.path.abspath(root)
        self.dockerfile = os.path.abspath(dockerfile)
        if dockerignore is None:
            beside = self.dockerfile + ".dockerignore"
            dockerignore = beside if os.path.exists(beside) else os.path.join(self.root, ".dockerignore")
        self.dockerignore = dockerignore
        text = ""
        if os.path.exists(dockerignore):
            with open(dockerignore, encoding="utf-8") as f:
                text = f.read()
        self.ignore_name = os.path.relpath(dockerignore)
        try:
            self.matcher = Matcher(read_ignore(text))
        except BadPattern as e:
            raise Failure(f"{self.ignore_name}: bad pattern: {e}") from None
        self.entries = {}
        self.walked_dirs = []  # directories the walk entered (for the self-test)
        self._walk()
        self._add_builder_files()

    def _walk(self):
        m = self.matcher
        chars = "*[]?^\\"
        only_prefix = not any(
            p.exclusion and any(c in p.without_trailing_glob() for c in chars) for p in m.patterns
        )
        exceptions = [p for p in m.patterns if p.exclusion]

        def add_parents(rel):
            parts = rel.split("/")
            for i in range(1, len(parts)):
                d = "/".join(parts[:i])
                if d not in self.entries:
                    st = os.lstat(os.path.join(self.root, d))
                    self.entries[d] = Entry(d, "dir", stat.S_IMODE(st.st_mode))

        def visit(rel_dir, parent_info):
            self.walked_dirs.append(rel_dir)
            absdir = os.path.join(self.root, rel_dir) if rel_dir else self.root
            for name in sorted(os.listdir(absdir), key=lambda s: s.encode("utf-8", "surrogateescape")):
                rel = f"{rel_dir}/{name}" if rel_dir else name
                full = os.path.join(self.root, rel)
                st = os.lstat(full)
                is_dir = stat.S_ISDIR(st.st_mode)
                excluded, info, _ = m.matches_using_parent_results(rel, parent_info)
                if excluded:
                    if is_dir and only_prefix:
                        if not m.exclusions:
                            continue
                        dir_slash = rel + "/"
                        if not any((p.without_trailing_glob() + "/").startswith(dir_slash) for p in exceptions):
                            continue
                    if is_dir:
                        visit(rel, info)
                    continue
                add_parents(rel)
                mode = stat.S_IMODE(st.st_mode)
                if is_dir:
                    self.entries[rel] = Entry(rel, "dir", mode)
                    visit(rel, info)
                elif stat.S_ISLNK(st.st_mode):
                    self.entries[rel] = Entry(rel, "link", mode, os.readlink(full))
                elif stat.S_ISREG(st.st_mode):
                    self.entries[rel] = Entry(rel, "file", mode)
                else:
                    self.entries[rel] = Entry(rel, "special", mode)

        visit("", None)

    def _add_builder_files(self):
        # The builder always gets the Dockerfile and .dockerignore; COPY sees them only when the
        # patterns admit them.
        for path in (self.dockerfile, self.dockerignore):
            rel = os.path.relpath(path, self.root)
            if rel.startswith("..") or not os.path.exists(path) or rel in self.entries:
                continue
            self.entries[rel] = Entry(rel, "file", stat.S_IMODE(os.lstat(path).st_mode), builder_only=True)

    def copyable(self, rel):
        e = self.entries.get(rel)
        return e if e is not None and not e.builder_only else None

    def why_missing(self, rel):
        """Why a context-relative path is not in the filtered context."""
        if not os.path.lexists(os.path.join(self.root, rel)):
            return "it does not exist"
        excluded, rule = self.matcher.matches_or_parent_matches(rel)
        if excluded and rule is not None:
            return f'{self.ignore_name} line {rule.line} ("{rule.source}") excludes it and no later exception admits it'
        e = self.entries.get(rel)
        if e is not None and e.builder_only:
            return f"{self.ignore_name} excludes it (the builder still reads it, but COPY cannot take it)"
        return f"{self.ignore_name} leaves it out"

    def under(self, rel):
        """Entries at or below a context-relative path ('.' = everything)."""
        if rel in (".", ""):
            return [e for e in self.entries.values() if not e.builder_only]
        prefix = rel + "/"
        return [e for k, e in self.entries.items() if (k == rel or k.startswith(prefix)) and not e.builder_only]

    def resolve_link(self, rel, depth=0):
        """A context path with its links followed, scoped to the context (as BuildKit follows a
        COPY source that is a link); None when it leads nowhere in the filtered context."""
        e = self.copyable(rel)
        if e is None or e.kind != "link":
            return rel if e is not None else None
        if depth > 40:
            return None
        target = e.target if e.target.startswith("/") else os.path.join(os.path.dirname(rel), e.target)
        return self.resolve_link(go_clean("/" + target).lstrip("/") or ".", depth + 1)


def materialise(ctx, dest):
    os.makedirs(dest, exist_ok=True)
    if os.listdir(dest):
        raise Failure(f"{dest} is not empty")
    for rel in sorted(ctx.entries):
        e = ctx.entries[rel]
        src, dst = os.path.join(ctx.root, rel), os.path.join(dest, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if e.kind == "dir":
            os.makedirs(dst, exist_ok=True)
        elif e.kind == "link":
            os.symlink(e.target, dst)
        elif e.kind == "file":
            shutil.copy2(src, dst)
        else:
            raise Failure(f"{rel}: neither file, directory nor link; the context cannot carry it")
    for rel in sorted(ctx.entries, reverse=True):  # directory modes after their contents
        e = ctx.entries[rel]
        if e.kind == "dir":
            os.chmod(os.path.join(dest, rel), e.mode)


# ---------------------------------------------------------------------------------------------
# The Dockerfile
# ---------------------------------------------------------------------------------------------


class Instruction:
    def __init__(self, line, end, keyword, rest, heredocs):
        self.line, self.end, self.keyword, self.rest, self.heredocs = line, end, keyword, rest, heredocs
        self.flags, self.args, self.json = {}, [], False
        if keyword in ("COPY", "ADD", "RUN"):
            self._split_flags()
        else:
            self.args_text = rest

    def _split_flags(self):
        text = self.rest.lstrip()
        while text.startswith("--"):
            word, _, text = text.partition(" ")
            text = text.lstrip()
            name, eq, value = word[2:].partition("=")
            self.flags.setdefault(name, []).append(value if eq else True)
        self.args_text = text
        if self.keyword in ("COPY", "ADD"):
            if text.startswith("["):
                try:
                    words = json.loads(text)
                    if isinstance(words, list) and all(isinstance(w, str) for w in words):
                        self.args, self.json = words, True
                        return
                except ValueError:
                    pass
            self.args = text.split()

    def where(self, dockerfile_name):
        return f"{dockerfile_name}:{self.line}"

    def __str__(self):
        return f"{self.keyword} {self.rest}".strip()


def parse_dockerfile(text):
    lines = text.split("\n")
    escape = "\\"
    i = 0
    # Parser directives: only at the very top, "# name=value".
    while i < len(lines):
        m = re.match(r"^#\s*([A-Za-z]+)\s*=\s*(\S+)\s*$", lines[i])
        if not m:
            break
        if m.group(1).lower() == "escape":
            escape = m.group(2)
        i += 1
    cont = re.compile(re.escape(escape) + r"[ \t]*$")
    out = []
    while i < len(lines):
        raw = lines[i].rstrip("\r")
        start = i + 1
        i += 1
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        text = raw
        while cont.search(text):
            text = cont.sub("", text)
            while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("#")):
                i += 1
            if i >= len(lines):
                break
            text += lines[i].rstrip("\r")
            i += 1
        keyword, _, rest = text.strip().partition(" ")
        keyword = keyword.upper()
        heredocs = {}
        if keyword in ("RUN", "COPY", "ADD"):
            for m in re.finditer(r"<<(-?)([\"']?)([A-Za-z_][A-Za-z0-9_]*)\2", rest):
                strip_tabs, name = m.group(1) == "-", m.group(3)
                body = []
                while i < len(lines):
                    line = lines[i].rstrip("\r")
                    i += 1
                    if (line.lstrip("\t") if strip_tabs else line) == name:
                        break
                    body.append(line)
                heredocs[name] = "\n".join(body)
        out.append(Instruction(start, i, keyword, rest.strip(), heredocs))
    return out


def expand(word, env):
    """Docker's word expansion for COPY/ADD/WORKDIR/ENV operands: quotes, \\ escapes, $VAR,
    ${VAR}, ${VAR:-x}, ${VAR-x}, ${VAR:+x}, ${VAR+x}; unknown variables are empty."""
    out, i, n, quote = [], 0, len(word), None
    while i < n:
        c = word[i]
        if quote == "'":
            if c == "'":
                quote = None
            else:
                out.append(c)
            i += 1
            continue
        if c in "'\"" and (quote is None or quote == c):
            quote = None if quote else c
            i += 1
            continue
        if c == "\\" and i + 1 < n:
            out.append(word[i + 1])
            i += 2
            continue
        if c == "$" and i + 1 < n:
            if word[i + 1] == "{":
                j = word.find("}", i + 2)
                if j < 0:
                    raise Failure(f"unterminated ${{ in {word!r}")
                body = word[i + 2 : j]
                m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-+])(.*))?$", body, re.S)
                if not m:
                    raise Failure(f"unsupported substitution ${{{body}}}")
                name, colon, op, alt = m.groups()
                val = env.get(name)
                if op is None:
                    out.append(val or "")
                elif op == "-":
                    use_alt = val is None or (colon and val == "")
                    out.append(expand(alt, env) if use_alt else val)
                else:
                    set_ = val is not None and not (colon and val == "")
                    out.append(expand(alt, env) if set_ else "")
                i = j + 1
                continue
            m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", word[i + 1 :])
            if m:
                out.append(env.get(m.group(0), ""))
                i += 1 + len(m.group(0))
                continue
        out.append(c)
        i += 1
    return "".join(out)


def split_words(text):
    """Words split at blanks outside quotes; quotes and escapes kept (expand removes them)."""
    words, cur, quote, i = [], [], None, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and quote != "'" and i + 1 < len(text):
            cur.append(text[i : i + 2])
            i += 2
            continue
        if quote:
            quote = None if c == quote else quote
            cur.append(c)
        elif c in "'\"":
            quote = c
            cur.append(c)
        elif c.isspace():
            if cur:
                words.append("".join(cur))
                cur = []
        else:
            cur.append(c)
        i += 1
    if cur:
        words.append("".join(cur))
    return words


def parse_assignments(text, legacy_allowed):
    """ENV/ARG/LABEL operands: name=value pairs (quotes kept for expand), or ENV's legacy
    'name value'."""
    words = split_words(text)
    if legacy_allowed and words and "=" not in words[0]:
        name, _, value = text.strip().partition(" ")
        return [(name, value.strip())]
    pairs = []
    for w in words:
        name, eq, value = w.partition("=")
        pairs.append((name, value if eq else None))
    return pairs


class Stage:
    def __init__(self, index, base, name, line):
        self.index, self.base, self.name, self.line = index, base, name, line
        self.instructions = []

    @property
    def label(self):
        return self.name or str(self.index)


def stages_of(instructions, build_args):
    """(global ARG values, [Stage]) with FROM's image expanded by the global ARGs."""
    global_args, stages = {}, []
    for ins in instructions:
        if ins.keyword == "FROM":
            words = [w for w in ins.rest.split() if not w.startswith("--")]
            if not words:
                raise Failure(f"line {ins.line}: FROM without an image")
            base = expand(words[0], global_args)
            name = words[2].lower() if len(words) >= 3 and words[1].lower() == "as" else None
            stages.append(Stage(len(stages), base, name, ins.line))
            stages[-1].from_instruction = ins
        elif not stages:
            if ins.keyword == "ARG":
                for name, value in parse_assignments(ins.rest, False):
                    v = build_args.get(name, value)
                    global_args[name] = expand(v, global_args) if v is not None else None
        else:
            stages[-1].instructions.append(ins)
    if not stages:
        raise Failure("no FROM in the Dockerfile")
    return global_args, stages


def stage_env(stage, ins_upto, global_args, build_args):
    """Variables in scope in a stage just before an instruction (ARG values, then ENV)."""
    env = {}
    for ins in stage.instructions:
        if ins is ins_upto:
            break
        if ins.keyword == "ARG":
            for name, value in parse_assignments(ins.rest, False):
                if name in build_args:
                    env[name] = build_args[name]
                elif value is not None:
                    env[name] = expand(value, env)
                else:
                    env[name] = global_args.get(name) or ""
        elif ins.keyword == "ENV":
            for name, value in parse_assignments(ins.rest, True):
                env[name] = expand(value or "", env)
    return env


def mount_sources(ins):
    """Context sources of RUN --mount=type=bind (no from=)."""
    out = []
    for spec in ins.flags.get("mount", []):
        if spec is True:
            continue
        fields = dict(f.partition("=")[::2] for f in spec.split(","))
        if fields.get("type", "bind") == "bind" and "from" not in fields:
            out.append(fields.get("source", fields.get("src", ".")))
    return out


# ---------------------------------------------------------------------------------------------
# check: every COPY source in the context; every copied link resolves in its stage
# ---------------------------------------------------------------------------------------------


class StageFS:
    """What a stage's own instructions put into its root: path -> 'dir' | 'file' | ('link', t)
    | 'opaque' (COPY --from: contents unknown here). Paths are absolute, cleaned."""

    def __init__(self):
        self.nodes = {}
        self.owned = set()  # directories the stage creates (WORKDIR, COPY destinations)
        self.links = []  # (link path, target, instruction) put in by COPYs from the context
        self.reported = set()  # links already reported dangling (once each)

    def add_dir(self, path):
        while path != "/" and self.nodes.get(path) is None:
            self.nodes[path] = "dir"
            path = os.path.dirname(path)

    def add(self, path, kind, ins=None):
        self.add_dir(os.path.dirname(path))
        self.nodes[path] = kind
        if isinstance(kind, tuple):
            self.links.append((path, kind[1], ins))

    def resolve(self, path, depth=0):
        """Follow links component by component; (resolved path, found)."""
        cur = "/"
        parts = [p for p in path.split("/") if p not in ("", ".")]
        for idx, part in enumerate(parts):
            if part == "..":
                cur = os.path.dirname(cur)
                continue
            nxt = os.path.join(cur, part)
            node = self.nodes.get(nxt)
            if node == "opaque":
                return nxt, True
            if isinstance(node, tuple):
                if depth > 40:
                    return nxt, False
                target = node[1] if node[1].startswith("/") else os.path.join(cur, node[1])
                rest = "/".join(parts[idx + 1 :])
                return self.resolve(go_clean(target + ("/" + rest if rest else "")), depth + 1)
            if node is None:
                return go_clean("/".join([nxt] + parts[idx + 1 :])), False
            cur = nxt
        return cur, True


def copy_plan(ctx, ins, env, workdir, dockerfile_name):
    """[(context entry, absolute destination path)] of a COPY/ADD from the context."""
    args = ins.args
    if len(args) < 2:
        raise Failure(f"{ins.where(dockerfile_name)}: {ins}: needs a source and a destination")
    dest = expand(args[-1], env)
    dest_is_dir = dest.endswith("/") or dest in (".", "..") or dest.endswith("/.")
    dest_abs = go_clean(dest if dest.startswith("/") else os.path.join(workdir, dest))
    sources, missing = [], []
    for raw in args[:-1]:
        if raw.startswith("<<") and raw.lstrip("<-").strip("\"'") in ins.heredocs:
            continue
        src = expand(raw, env)
        if ins.keyword == "ADD" and re.match(r"^(https?://|git@|[a-z]+://)", src):
            continue
        rel = go_clean("/" + src).lstrip("/") or "."
        if has_wildcards(rel):
            rx = go_match_regex(rel)
            hits = sorted(k for k, e in ctx.entries.items() if not e.builder_only and rx.match(k))
            if not hits:
                missing.append(f"{ins.where(dockerfile_name)}: {ins}: no file in the build context matches {src!r}")
            sources.extend(hits)
        else:
            sources.append(rel)
    if len(sources) > 1:
        dest_is_dir = True
    plan = []
    for rel in sources:
        if rel == ".":
            top = "."
        else:
            top = ctx.resolve_link(rel)
            if top is None:
                why = ctx.why_missing(rel)
                if ctx.copyable(rel) is not None:  # a link whose target is not there
                    why = f"it is a link to {ctx.entries[rel].target!r}, which is not in the build context"
                missing.append(f"{ins.where(dockerfile_name)}: {ins}: {rel!r} is not in the build context: {why}")
                continue
        entry = ctx.entries.get(top) if top != "." else Entry(".", "dir", 0o755)
        if entry.kind == "dir":
            prefix = "" if top == "." else top + "/"
            plan.append((entry, dest_abs))
            for e in ctx.under(top):
                if e.rel != top:
                    plan.append((e, go_clean(os.path.join(dest_abs, e.rel[len(prefix):]))))
        else:
            target = os.path.join(dest_abs, os.path.basename(rel)) if dest_is_dir else dest_abs
            plan.append((entry, go_clean(target)))
    if missing:
        raise Failure("\n".join(missing))
    return plan


def check(ctx, dockerfile_name, build_args, quiet=False):
    """Raise Failure listing every problem; return (instructions, global args, stages)."""
    with open(ctx.dockerfile, encoding="utf-8") as f:
        instructions = parse_dockerfile(f.read())
    global_args, stages = stages_of(instructions, build_args)
    problems, notes, checked = [], [], 0
    for stage in stages:
        fs = StageFS()
        workdir = "/"
        for ins in stage.instructions:
            env = stage_env(stage, ins, global_args, build_args)
            try:
                if ins.keyword == "WORKDIR":
                    wd = expand(ins.rest, env)
                    workdir = go_clean(wd if wd.startswith("/") else os.path.join(workdir, wd))
                    fs.add_dir(workdir)
                    fs.owned.add(workdir)
                elif ins.keyword in ("COPY", "ADD") and "from" not in ins.flags:
                    for entry, dest in copy_plan(ctx, ins, env, workdir, dockerfile_name):
                        checked += 1
                        if entry.kind == "dir":
                            fs.add_dir(dest)
                            fs.owned.add(dest)
                        elif entry.kind == "link":
                            fs.add(dest, ("link", entry.target), ins)
                        else:
                            fs.add(dest, "file")
                            fs.owned.add(os.path.dirname(dest))
                elif ins.keyword in ("COPY", "ADD"):
                    dest = expand(ins.args[-1], env) if ins.args else "/"
                    dest_abs = go_clean(dest if dest.startswith("/") else os.path.join(workdir, dest))
                    if dest.endswith("/") or len(ins.args) > 2:
                        for src in ins.args[:-1]:
                            fs.add(os.path.join(dest_abs, os.path.basename(expand(src, env))), "opaque")
                    else:
                        fs.add(dest_abs, "opaque")
                elif ins.keyword == "RUN":
                    for src in mount_sources(ins):
                        rel = go_clean("/" + expand(src, env)).lstrip("/") or "."
                        checked += 1
                        if rel != "." and ctx.copyable(rel) is None:
                            problems.append(
                                f"{ins.where(dockerfile_name)}: RUN --mount source {rel!r} is not in the "
                                f"build context: {ctx.why_missing(rel)}"
                            )
                    problems.extend(dangling_links(fs, ins, dockerfile_name, notes))
            except Failure as e:
                problems.append(str(e))
        problems.extend(dangling_links(fs, None, dockerfile_name, notes))
    for n in sorted(set(notes)):
        log(f"note: {n}")
    if problems:
        raise Failure("\n".join(dict.fromkeys(problems)))
    if not quiet:
        n_files = sum(1 for e in ctx.entries.values() if e.kind != "dir" and not e.builder_only)
        log(
            f"OK: {checked} paths COPY/ADD take from a context of {n_files} files "
            f"({ctx.ignore_name}, {len(stages)} stages); every copied link resolves in its stage"
        )
    return instructions, global_args, stages


def dangling_links(fs, at, dockerfile_name, notes):
    """Problems for links already copied into the stage that do not resolve (at a RUN, or at
    the end of the stage when `at` is None)."""
    out = []
    for link, target, ins in fs.links:
        dest = target if target.startswith("/") else os.path.join(os.path.dirname(link), target)
        resolved, found = fs.resolve(link)
        if found or link in fs.reported:
            continue
        fs.reported.add(link)
        inside = any(resolved == d or resolved.startswith(d.rstrip("/") + "/") for d in fs.owned if d != "/")
        where = f"by {at.where(dockerfile_name)} ({at.keyword})" if at else "at the end of the stage"
        if inside:
            out.append(
                f"{ins.where(dockerfile_name)}: {ins}: the link {link} -> {target} (copied as a link) "
                f"points at {go_clean(dest)}, which no COPY of this stage has put there {where}"
            )
        else:
            notes.append(f"link {link} -> {target} points outside what the Dockerfile copies (base image?)")
    return out


# ---------------------------------------------------------------------------------------------
# replay-build
# ---------------------------------------------------------------------------------------------

HOST_DIRS = ("usr", "etc", "opt")  # bound read-only into every RUN's root
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# Runs in a mount namespace of its own (unshare): binds the host's /usr, /etc, /opt read-only,
# /proc, /dev, /sys, then chroots into the stage root and runs the command in the workdir.
RUN_SETUP = r"""
set -eu
root=$1 workdir=$2; shift 2
for d in usr etc opt; do mount --bind -o ro "/$d" "$root/$d"; done
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --bind -o ro /sys "$root/sys"
exec chroot "$root" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$workdir" "$@"
"""


def mounts_under(path):
    path = os.path.realpath(path)
    with open("/proc/self/mounts") as f:
        points = [line.split()[1].replace("\\040", " ") for line in f]
    return [p for p in points if p == path or p.startswith(path + "/")]


def safe_rmtree(path):
    if not os.path.lexists(path):
        return
    busy = mounts_under(path)
    if busy:
        raise Failure(f"refusing to delete {path}: mounted below it: {', '.join(busy)}")
    shutil.rmtree(path)


def new_root(root):
    safe_rmtree(root)
    os.makedirs(root)
    for d in HOST_DIRS + ("proc", "dev", "sys", "root", "tmp", "var/tmp"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    os.chmod(os.path.join(root, "root"), 0o700)
    for d in ("tmp", "var/tmp"):
        os.chmod(os.path.join(root, d), 0o1777)
    for d in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = "/" + d
        if os.path.islink(host):
            os.symlink(os.readlink(host), os.path.join(root, d))
        elif os.path.isdir(host):
            raise Failure(f"{host} is a directory, not a link into /usr: the replay needs a merged-/usr host")


def apt_only(cmd):
    """Packages an apt-only RUN installs, or None when the RUN is not apt-only."""
    parts = [p.strip() for p in re.split(r"&&|;|\n", cmd) if p.strip()]
    pkgs = []
    for p in parts:
        words = p.split()
        if words[:1] == ["apt-get"] and len(words) > 1:
            verbs = [w for w in words[1:] if not w.startswith("-")]
            if verbs[:1] in (["update"], ["clean"]):
                continue
            if verbs[:1] == ["install"]:
                pkgs.extend(verbs[1:])
                continue
            return None
        if words[:2] == ["rm", "-rf"] and all(w.startswith("/var/lib/apt/lists") for w in words[2:]):
            continue
        return None
    return pkgs


def host_package_versions(pkgs):
    found, missing = [], []
    for p in pkgs:
        r = subprocess.run(
            ["dpkg-query", "-W", "-f=${Status} ${Version}", p], capture_output=True, text=True
        )
        if r.returncode == 0 and r.stdout.startswith("install ok installed"):
            found.append(f"{p} {r.stdout.split()[-1]}")
        else:
            missing.append(p)
    return found, missing


def copy_into(plan, context_dir, root):
    for entry, dest in plan:
        target = root + dest
        src = os.path.join(context_dir, entry.rel) if entry.rel != "." else context_dir
        if entry.kind == "dir":
            os.makedirs(target, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.lexists(target) and not os.path.isdir(target):
            os.unlink(target)
        if entry.kind == "link":
            os.symlink(entry.target, target)
        else:
            shutil.copy2(src, target)


def replay_build(ctx, dockerfile_name, build_args, work, only_stage=None):
    instructions, global_args, stages = check(ctx, dockerfile_name, build_args)
    final = stages[-1]
    names = {s.label: s for s in stages}
    wanted = []
    for ins in final.instructions:
        if ins.keyword in ("COPY", "ADD") and "from" in ins.flags:
            ref = str(ins.flags["from"][0]).lower()
            if ref in names and names[ref] is not final and names[ref] not in wanted:
                wanted.append(names[ref])
    if only_stage:
        if only_stage not in names:
            raise Failure(f"no stage {only_stage!r} in {dockerfile_name}")
        wanted = [names[only_stage]]
    if not wanted:
        raise Failure(f"the last stage of {dockerfile_name} copies from no other stage: nothing to replay")
    if os.geteuid() != 0:
        raise Failure("replay-build must run as root (chroot, mount)")
    for tool in ("unshare", "chroot", "mount", "dpkg-query"):
        if shutil.which(tool) is None:
            raise Failure(f"{tool} not found")
    swift = shutil.which("swift")
    toolchain = os.path.dirname(os.path.realpath(swift)) if swift else None

    work = os.path.abspath(work)
    os.makedirs(work, exist_ok=True)
    context_dir = os.path.join(work, "context")
    safe_rmtree(context_dir)
    materialise(ctx, context_dir)
    log(f"materialised the filtered context in {context_dir}")

    for stage in wanted:
        started = time.monotonic()
        root = os.path.join(work, "stages", stage.label)
        new_root(root)
        if stage.base in names:
            raise Failure(f"stage {stage.label} builds on stage {stage.base}: the replay does not chain stages")
        log(
            f"stage {stage.label} (FROM {stage.base}, {dockerfile_name}:{stage.line}) in {root}: "
            f"the host's /{', /'.join(HOST_DIRS)} (read-only) stand in for the image"
            + (f"; swift from {toolchain}" if toolchain else "")
        )
        workdir, shell = "/", ["/bin/sh", "-c"]
        for ins in stage.instructions:
            env = stage_env(stage, ins, global_args, build_args)
            where = ins.where(dockerfile_name)
            k = ins.keyword
            if k in ("ARG", "ENV", "LABEL", "EXPOSE", "CMD", "ENTRYPOINT", "HEALTHCHECK", "STOPSIGNAL", "VOLUME", "MAINTAINER"):
                continue
            if k == "WORKDIR":
                wd = expand(ins.rest, env)
                workdir = go_clean(wd if wd.startswith("/") else os.path.join(workdir, wd))
                os.makedirs(root + workdir, exist_ok=True)
                log(f"{where}: WORKDIR {workdir}")
            elif k == "SHELL":
                shell = json.loads(ins.rest)
            elif k == "USER":
                if expand(ins.rest, env).split(":")[0] not in ("root", "0"):
                    raise Failure(f"{where}: {ins}: the replay runs as root only")
            elif k in ("COPY", "ADD"):
                unsupported = set(ins.flags) - {"chown", "chmod", "link"}
                if "from" in ins.flags or unsupported:
                    raise Failure(f"{where}: {ins}: the replay does not reproduce {sorted(unsupported or {'from'})}")
                plan = copy_plan(ctx, ins, env, workdir, dockerfile_name)
                if k == "ADD" and any(re.search(r"\.(tar|tgz|tar\.\w+|txz|tbz2?)$", e.rel) for e, _ in plan):
                    raise Failure(f"{where}: {ins}: ADD of a local archive (extracted by Docker) is not replayed")
                copy_into(plan, context_dir, root)
                if "chmod" in ins.flags:
                    for _, dest in plan:
                        if not os.path.islink(root + dest):
                            os.chmod(root + dest, int(ins.flags["chmod"][0], 8))
                log(f"{where}: {ins} ({len(plan)} paths)")
            elif k == "RUN":
                if ins.flags or ins.heredocs:
                    raise Failure(f"{where}: {ins}: RUN flags and heredocs are not replayed")
                cmd = ins.rest
                pkgs = apt_only(cmd)
                if pkgs is not None:
                    found, missing = host_package_versions([expand(p, env) for p in pkgs])
                    if missing:
                        raise Failure(
                            f"{where}: the stage installs {' '.join(missing)}, which the host lacks "
                            f"(apt-get install {' '.join(missing)}): the host cannot stand in for it"
                        )
                    log(f"{where}: {ins}: not run; the host's packages stand in: {', '.join(found)}")
                    continue
                argv = json.loads(cmd) if cmd.startswith("[") else shell + [cmd]
                path = DEFAULT_PATH if not toolchain else toolchain + ":" + DEFAULT_PATH
                run_env = {"PATH": path, "HOME": "/root"}
                run_env.update({n: v for n, v in env.items() if v is not None})
                envv = ["/usr/bin/env", "-i"] + [f"{n}={v}" for n, v in run_env.items()]
                log(f"{where}: RUN {cmd}")
                t0 = time.monotonic()
                rc = subprocess.call(
                    ["unshare", "--mount", "--propagation", "private", "--fork", "--",
                     "/bin/sh", "-c", RUN_SETUP, "run-setup", root, workdir] + envv + argv
                )
                if rc != 0:
                    raise Failure(f"{where}: RUN failed (exit {rc}): {cmd}")
                log(f"{where}: RUN done in {time.monotonic() - t0:.0f}s")
            else:
                raise Failure(f"{where}: the replay does not know {k}: extend scripts/ci/docker-context.py")
        leftover = mounts_under(root)
        if leftover:
            raise Failure(f"mounts left under {root}: {', '.join(leftover)}")
        # Everything the last stage takes from this one must be there.
        taken = []
        for ins in final.instructions:
            if ins.keyword in ("COPY", "ADD") and str(ins.flags.get("from", [""])[0]).lower() == stage.label:
                fenv = stage_env(final, ins, global_args, build_args)
                for src in ins.args[:-1]:
                    path = expand(src, fenv)
                    if not os.path.lexists(root + go_clean("/" + path)):
                        raise Failure(f"{ins.where(dockerfile_name)}: {ins}: {path} is not in the replayed stage {stage.label}")
                    taken.append(path)
        log(
            f"OK: stage {stage.label} replayed in {time.monotonic() - started:.0f}s; "
            f"the last stage takes {' '.join(taken) or 'nothing'} from {root}"
        )


# ---------------------------------------------------------------------------------------------
# self-test
# ---------------------------------------------------------------------------------------------


def self_test(repo):
    failures, count = [], [0]

    def expect(cond, what):
        count[0] += 1
        if not cond:
            failures.append(what)

    # 1. Single patterns: (pattern, path, excluded?) through MatchesOrParentMatches and
    #    through the walk's MatchesUsingParentResults chain. Docker's documented rules and the
    #    cases moby/patternmatcher tests.
    single = [
        ("*", "file", True), ("*", "dir/file", True),  # parent "dir" matches
        ("*.go", "a.go", True), ("*.go", "dir/a.go", False),  # * stops at /
        ("*/temp*", "somedir/temporary.txt", True), ("*/temp*", "temp", False),
        ("*/*/temp*", "a/b/temp.txt", True), ("temp?", "temp1", True), ("temp?", "temp12", False),
        ("**", "dir/file", True), ("**/*.go", "a.go", True), ("**/*.go", "x/y/a.go", True),
        ("**/dir", "dir", True), ("**/dir", "a/dir/file", True), ("**/dir2/*", "dir/dir2/file", True),
        ("dir/**", "dir/x/y", True), ("abc/**", "abc", False), ("**file", "dir/file", True),
        ("**/.foo", "bar.foo", False), ("**file", "xfile", True),  # a leading ** is a bare suffix ("a**/*.txt", "a/dir/dir/file.txt", True),
        ("a[b-d]e", "ace", True), ("a[b-d]e", "aae", False), ("a[^b-d]e", "aze", True),
        (".*", ".foo", True), (".*", "foo", False), ("abc.def", "abcZdef", False),
        ("a(b)c/def", "a(b)c/def", True), ("a.|)$(}+{bc", "a.|)$(}+{bc", True),
        ("a\\*b", "a*b", True), ("a\\*b", "aXb", False),
        ("dist/*.whl", "dist/p-2.4.0rc3.dev36+g08acad9-py3-none-any.whl", True),
        ("Sources/", "Sources/x.swift", True),  # cleaned: the trailing / goes
        ("./docs/../Sources", "Sources/x.swift", True),  # cleaned: docs/.. goes
        ("docs", "docsx", False), ("docs", "docs/a/b", True),
    ]
    for pat, path, want in single:
        try:
            m = Matcher([(1, pat)])
        except BadPattern as e:
            failures.append(f"pattern {pat!r} rejected: {e}")
            continue
        got, _ = m.matches_or_parent_matches(path)
        expect(got == want, f"{pat!r} vs {path!r}: excluded={got}, want {want}")
        info, parts = None, path.split("/")
        for i in range(1, len(parts)):
            _, info, _ = m.matches_using_parent_results("/".join(parts[:i]), info)
        got2, _, _ = m.matches_using_parent_results(path, info)
        expect(got2 == want, f"{pat!r} vs {path!r} (walk order): excluded={got2}, want {want}")

    # 2. Rule lists: exceptions, the last matching rule wins, leading / ignored.
    multi = [
        (["*", "!Sources"], "Sources/a/b.swift", False),
        (["*", "!Sources"], "Tests/a.swift", True),
        (["*", "!Sources", "Sources/secret"], "Sources/secret", True),  # later rule wins
        (["!README.md", "*.md"], "README.md", True),  # the exception came first
        (["*.md", "!README*.md", "README-secret.md"], "README-secret.md", True),
        (["*.md", "README-secret.md", "!README*.md"], "README-secret.md", False),
        (["docs", "!docs/README.md"], "docs/README.md", False),
        (["/docs"], "docs/x", True),  # leading / ignored
        (["**", "!util/docker/web"], "util/docker/web/foo", False),
        (["**", "!util/docker/web", "util/docker/web/foo"], "util/docker/web/foo", True),
    ]
    for pats, path, want in multi:
        got, _ = Matcher(read_ignore("\n".join(pats))).matches_or_parent_matches(path)
        expect(got == want, f"{pats} vs {path!r}: excluded={got}, want {want}")

    # 3. Reading .dockerignore: comments, spaces, BOM, CRLF, cleaning, leading /.
    read = read_ignore("\ufeff# comment\n  # not a comment\n/abs\r\n! /neg/../x/ \n\n ./a//b/ \n!\n")
    expect(
        [p for _, p in read] == ["# not a comment", "abs", "!x", "a/b", "!"],
        f"read_ignore gave {[p for _, p in read]}",
    )
    expect([n for n, _ in read] == [2, 3, 4, 6, 7], f"read_ignore line numbers {[n for n, _ in read]}")

    # 4. Patterns Docker rejects.
    for bad in ["!", "[", "a[", "[]a]", "[-]", "[x-]", "[a-b-c]", "\\", "[^bc"]:
        try:
            Matcher([(1, bad)])
            failures.append(f"bad pattern {bad!r} accepted")
        except BadPattern:
            pass

    # 5. Go filepath.Match for COPY wildcards.
    for pat, name, want in [("*.swift", "a.swift", True), ("*.swift", "d/a.swift", False),
                            ("S*/a", "Src/a", True), ("a?c", "a/c", False), ("[^x]b", "ab", True),
                            ("[\\]a]", "]", True), ("x\\*", "x*", True)]:
        expect(bool(go_match_regex(pat).match(name)) == want, f"filepath.Match({pat!r}, {name!r}) != {want}")

    # 6. Variable expansion in COPY operands.
    env = {"A": "x", "E": ""}
    for word, want in [("$A/b", "x/b"), ("${A}b", "xb"), ("${N:-d}", "d"), ("${E:-d}", "d"),
                       ("${E-d}", ""), ("${A:+y}", "y"), ("${N:+y}", ""), ("'$A'", "$A"), ("\\$A", "$A")]:
        expect(expand(word, env) == want, f"expand({word!r}) = {expand(word, env)!r}, want {want!r}")

    pairs = parse_assignments('A="x y" B=\'$C\' D=e\\ f', False)
    expect([(n, expand(v, {"C": "c"})) for n, v in pairs] == [("A", "x y"), ("B", "$C"), ("D", "e f")],
           f"ARG/ENV operands gave {pairs}")

    # 7. The Dockerfile parser: continuations, comments inside them, JSON form, flags, heredocs.
    ins = parse_dockerfile(
        "# escape=\\\nARG X=1\nFROM a AS b\nRUN one \\\n# inside\n  two\n"
        'COPY ["a b", "c/"]\nCOPY --from=b --chmod=644 /x /y\nCOPY <<EOF /z\nbody\nEOF\nRUN last\n'
    )
    kinds = [(i.keyword, i.line) for i in ins]
    expect(kinds == [("ARG", 2), ("FROM", 3), ("RUN", 4), ("COPY", 7), ("COPY", 8), ("COPY", 9), ("RUN", 12)],
           f"parsed {kinds}")
    expect(ins[2].rest == "one   two", f"continuation gave {ins[2].rest!r}")
    expect(ins[3].args == ["a b", "c/"] and ins[3].json, f"JSON COPY gave {ins[3].args}")
    expect(ins[4].flags == {"from": ["b"], "chmod": ["644"]} and ins[4].args == ["/x", "/y"],
           f"flags gave {ins[4].flags} {ins[4].args}")
    expect(ins[5].heredocs == {"EOF": "body"}, f"heredoc gave {ins[5].heredocs}")

    # 8. A walk on a tree of its own: skipped directories, parents sent with an admitted file,
    #    links kept, Dockerfile and .dockerignore sent but not copyable when excluded, and the
    #    check failing on a missing source and on a dangling copied link.
    with tempfile.TemporaryDirectory() as tmp:
        def put(rel, text="x"):
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(text)
        for rel in ["big/a", "big/deep/b", "scripts/keep.sh", "scripts/drop.sh", "src/x.swift", "data.yaml"]:
            put(rel)
        os.symlink("../data.yaml", os.path.join(tmp, "src/data.yaml"))
        put(".dockerignore", "*\n!src\n!scripts/keep.sh\n!data.yaml\n")
        put("Dockerfile", "FROM s AS build\nWORKDIR /w\nCOPY data.yaml ./\nCOPY src ./src\nRUN make\n")
        ctx = Context(tmp, os.path.join(tmp, "Dockerfile"))
        expect(sorted(ctx.entries) == [".dockerignore", "Dockerfile", "data.yaml", "scripts",
                                       "scripts/keep.sh", "src", "src/data.yaml", "src/x.swift"],
               f"walk gave {sorted(ctx.entries)}")
        expect("big" not in ctx.walked_dirs, "the walk entered big/, which no exception can reach")
        expect("scripts" in ctx.walked_dirs, "the walk skipped scripts/, where an exception points")
        expect(ctx.entries["src/data.yaml"].kind == "link", "a link was not kept as a link")
        expect(ctx.copyable("Dockerfile") is None and ctx.entries["Dockerfile"].builder_only,
               "the excluded Dockerfile must be sent but not copyable")
        check(ctx, "Dockerfile", {}, quiet=True)
        put("Dockerfile", "FROM s\nWORKDIR /w\nCOPY src ./src\nRUN make\nCOPY data.yaml ./\n")
        try:
            check(Context(tmp, os.path.join(tmp, "Dockerfile")), "Dockerfile", {}, quiet=True)
            failures.append("a link copied before its target was passed")
        except Failure as e:
            expect("Dockerfile:3" in str(e) and "Dockerfile:4" in str(e), f"message: {e}")
        put("Dockerfile", "FROM s\nCOPY scripts/drop.sh Dockerfile /\n")
        try:
            check(Context(tmp, os.path.join(tmp, "Dockerfile")), "Dockerfile", {}, quiet=True)
            failures.append("COPY of an excluded file was passed")
        except Failure as e:
            expect("Dockerfile:2" in str(e) and "scripts/drop.sh" in str(e)
                   and ".dockerignore line 1" in str(e) and "'Dockerfile'" in str(e), f"message: {e}")
        # A wildcard exception: no directory can be skipped, and big/deep/b comes with its parents.
        put(".dockerignore", "*\n!**/b\n")
        wild = Context(tmp, os.path.join(tmp, "Dockerfile"))
        expect(sorted(k for k in wild.entries if k.startswith("big")) == ["big", "big/deep", "big/deep/b"],
               f"wildcard exception walk gave {sorted(wild.entries)}")
        expect("big/deep" in wild.walked_dirs, "the walk skipped big/deep/ despite a wildcard exception")
        out = os.path.join(tmp, "out")
        materialise(ctx, out)
        expect(os.readlink(os.path.join(out, "src/data.yaml")) == "../data.yaml", "materialise lost a link")
        expect(not os.path.exists(os.path.join(out, "big")), "materialise sent big/")

    # 9. This repository: the check passes; without the openapi.yaml exception, or without the
    #    COPY of openapi.yaml, it must fail, naming the file and the Dockerfile line.
    dockerfile = os.path.join(repo, "Dockerfile")
    ignore = os.path.join(repo, ".dockerignore")
    try:
        check(Context(repo, dockerfile, ignore), "Dockerfile", {}, quiet=True)
    except Failure as e:
        failures.append(f"the repository's own check fails: {e}")
    with open(dockerfile) as f:
        df_lines = f.read().split("\n")
    copy_line = next((n for n, line in enumerate(df_lines, 1) if re.match(r"COPY\s+openapi\.yaml\b", line)), None)
    expect(copy_line is not None, "the Dockerfile has no COPY openapi.yaml line")
    with tempfile.TemporaryDirectory() as tmp:
        with open(ignore) as f:
            trimmed = [line for line in f.read().split("\n") if "openapi.yaml" not in line or line.startswith("#")]
        cut = os.path.join(tmp, "dockerignore-without-openapi")
        with open(cut, "w") as f:
            f.write("\n".join(trimmed))
        try:
            check(Context(repo, dockerfile, cut), "Dockerfile", {}, quiet=True)
            failures.append(".dockerignore without the openapi.yaml exception passed the check")
        except Failure as e:
            expect(f"Dockerfile:{copy_line}" in str(e) and "'openapi.yaml'" in str(e),
                   f"the failure does not name openapi.yaml and Dockerfile:{copy_line}: {e}")
        cut_df = os.path.join(tmp, "Dockerfile")
        with open(cut_df, "w") as f:
            f.write("\n".join(line for n, line in enumerate(df_lines, 1) if n != copy_line))
        try:
            check(Context(repo, cut_df, ignore), "Dockerfile", {}, quiet=True)
            failures.append("a Dockerfile without COPY openapi.yaml passed the check")
        except Failure as e:
            expect("Sources/ArchiveServer/Resources/openapi.yaml -> ../../../openapi.yaml" in str(e),
                   f"the failure does not name the dangling link: {e}")

    if failures:
        for f in failures:
            log(f"self-test FAIL: {f}")
        return 1
    log(f"self-test OK ({count[0]} checks: patterns, .dockerignore reading, the walk, the Dockerfile, this repository)")
    return 0


# ---------------------------------------------------------------------------------------------


def main(argv):
    # This file is scripts/ci/docker-context.py: the repository is three levels up.
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if argv[:1] == ["--self-test"]:
        return self_test(repo)
    ap = argparse.ArgumentParser(prog="docker-context.py", description=__doc__.split("\n")[0])
    ap.add_argument("command", nargs="?", default="check", choices=["check", "list", "materialise", "replay-build"])
    ap.add_argument("dir", nargs="?", help="materialise: target directory; replay-build: work directory")
    ap.add_argument("--context", default=repo)
    ap.add_argument("--dockerfile", default=None, help="default: CONTEXT/Dockerfile")
    ap.add_argument("--dockerignore", default=None, help="default: DOCKERFILE.dockerignore, else CONTEXT/.dockerignore")
    ap.add_argument("--build-arg", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--stage", help="replay-build: the stage to replay (default: those the last stage copies from)")
    args = ap.parse_args(argv)
    if args.command in ("materialise", "replay-build") and not args.dir:
        ap.error(f"{args.command} needs a directory")
    dockerfile = args.dockerfile or os.path.join(args.context, "Dockerfile")
    build_args = dict(a.partition("=")[::2] for a in args.build_arg)
    name = os.path.relpath(dockerfile)
    try:
        ctx = Context(args.context, dockerfile, args.dockerignore)
        if args.command == "list":
            for rel in sorted(ctx.entries):
                e = ctx.entries[rel]
                suffix = "/" if e.kind == "dir" else f" -> {e.target}" if e.kind == "link" else ""
                print(rel + suffix + ("    (builder only: excluded for COPY)" if e.builder_only else ""))
        elif args.command == "check":
            check(ctx, name, build_args)
        elif args.command == "materialise":
            check(ctx, name, build_args)
            materialise(ctx, args.dir)
            log(f"materialised the filtered context in {args.dir}")
        else:
            replay_build(ctx, name, build_args, args.dir, args.stage)
    except Failure as e:
        for line in str(e).split("\n"):
            log(f"FAIL: {line}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
