#!/usr/bin/env python3
"""The instruction-count guard: what archive-tool's conversions cost, in instructions, against
the counts committed in scripts/ci/instruction-baseline.tsv.

Wall time on a shared machine swings by ±20 %; callgrind's count of executed instructions is the
same from run to run for the same binary, inputs and environment, so a change of 2 % is a real
change. Every row runs one archive-tool process under `valgrind --tool=callgrind` on a fixed,
generated input (the generators are seeded) and counts every instruction the process executes,
its start-up included:

  keyed decode and encode of a game save and a league save (binary), decode of an XML game
  save; decode and encode of a typedstream; `decode --nested` and encode of a plain plist full
  of nested payloads; and a batch of small real files (one process each: start-up dominates).

The environment is fixed (`env -i`, `SWIFT_DETERMINISTIC_HASHING=1`, `GLIBC_TUNABLES=` empty) so
that hashing and the allocator take the same paths on every run.

  check_instructions.py --bin-dir DIR            compare with the baseline; exit 1 when a row
                                                 costs more than 2 % over its baseline
  check_instructions.py --bin-dir DIR --update   write the counts measured as the new baseline

Each row also shows its instructions per byte of the binary document (the decoded input, or
the document an encode writes; for the small files, all four files' bytes).

A commit that changes the baseline must say why in its message, in a trailer line
`Instruction-baseline: <why the counts moved>`; the check fails when the last commit that
touched the baseline file lacks one (so a regression is accepted on purpose, never by
accident). A row more than 2 % *below* its baseline passes with a note: commit the lower
counts so that the guard keeps the gain.

The counts belong to one toolchain and one kind of build: CI's release build, the Dockerfile's
(`swift build -c release --static-swift-stdlib`). The baseline's header names the toolchain and
the core count it was measured with (archive-tool splits some passes by cores); a different
toolchain fails the check with a request to remeasure, a different core count is reported.

Needs valgrind and python3. Runs the rows two at a time; about 2 minutes on two cores.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "scripts" / "ci" / "instruction-baseline.tsv"
TOLERANCE = 0.02
TRAILER = "Instruction-baseline:"

# Small real files, one archive-tool process each (the cost of a folder converted a file at a
# time): a Terminal theme with nested archives (--nested), a typedstream colour list, a keyed
# attributed string and an XML keyed archive.
SMALL_FILES = [
    ("--nested", "Tests/Fixtures/public/plain-plist-with-nested-archive/dracula-terminal-app_Dracula.terminal"),
    ("", "Tests/Fixtures/public/typedstream/python-typedstream_Emacs.clr"),
    ("", "Tests/Fixtures/apple/scl-macOS1014_NSAttributedString.archive"),
    ("", "Tests/Fixtures/apple/goios_primitives.xml"),
]


@dataclass(frozen=True)
class Row:
    """One measured workload: `runs` archive-tool command lines whose counts are summed."""

    name: str
    runs: list[list[str]]
    inputs: list[Path]

    @property
    def input_bytes(self) -> int:
        return sum(path.stat().st_size for path in self.inputs)


def generate_inputs(tool: Path, work: Path) -> list[Row]:
    """Writes the seeded inputs into `work` and returns the rows that convert them."""
    gen = REPO / "scripts" / "gen"

    def python(*args: str) -> None:
        subprocess.run([sys.executable, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def tool_run(*args: str, stdout: Path | None = None) -> None:
        with open(stdout or os.devnull, "wb") as out:
            subprocess.run([str(tool), *args], check=True, stdout=out)

    python(str(gen / "gen_game_save.py"), "--size-mb", "5", "--seed", "1", "--out", str(work / "game.bplist"))
    python(str(gen / "gen_game_save.py"), "--size-mb", "5", "--seed", "2", "--shape", "league", "--out", str(work / "league.bplist"))
    python(str(gen / "gen_game_save.py"), "--size-mb", "2", "--seed", "3", "--format", "xml", "--out", str(work / "game.xml"))
    python(str(gen / "gen_nested_documents.py"), "--kind", "typedstream", "--size-mb", "2", "--seed", "4", "--out", str(work / "stream.gen.json"))
    python(str(gen / "gen_nested_documents.py"), "--kind", "nested", "--size-mb", "2", "--seed", "5", "--out", str(work / "nested.gen.json"))
    tool_run("encode", str(work / "stream.gen.json"), "-o", str(work / "stream.typedstream"))
    tool_run("encode", str(work / "nested.gen.json"), "-o", str(work / "nested.bplist"))
    # The encode rows read what decode writes: the JSON a user edits and sends back.
    tool_run("decode", str(work / "game.bplist"), stdout=work / "game.json")
    tool_run("decode", str(work / "league.bplist"), stdout=work / "league.json")
    tool_run("decode", str(work / "stream.typedstream"), stdout=work / "stream.json")
    tool_run("decode", "--nested", str(work / "nested.bplist"), stdout=work / "nested.json")

    def encode(name: str) -> list[str]:
        return ["encode", str(work / name), "-o", str(work / (name + ".out"))]

    small = [["decode", *flags.split(), str(REPO / path)] for flags, path in SMALL_FILES]
    return [
        Row("keyed decode, game save 5 MB", [["decode", str(work / "game.bplist")]], [work / "game.bplist"]),
        Row("keyed decode, league save 5 MB", [["decode", str(work / "league.bplist")]], [work / "league.bplist"]),
        Row("keyed decode, XML game save 2 MB", [["decode", str(work / "game.xml")]], [work / "game.xml"]),
        Row("keyed encode, game save's JSON", [encode("game.json")], [work / "game.bplist"]),
        Row("keyed encode, league save's JSON", [encode("league.json")], [work / "league.bplist"]),
        Row("typedstream decode, 2 MB", [["decode", str(work / "stream.typedstream")]], [work / "stream.typedstream"]),
        Row("typedstream encode, its JSON", [encode("stream.json")], [work / "stream.typedstream"]),
        Row("nested decode --nested, plist 2 MB", [["decode", "--nested", str(work / "nested.bplist")]], [work / "nested.bplist"]),
        Row("nested encode, its JSON", [encode("nested.json")], [work / "nested.bplist"]),
        Row(f"small real files, {len(small)} processes", small, [REPO / path for _, path in SMALL_FILES]),
    ]


def count_instructions(tool: Path, args: list[str], work: Path, index: int) -> int:
    """Instructions one archive-tool process executes, counted by callgrind."""
    out_file = work / f"callgrind.{index}.out"
    environment = {"PATH": "/usr/bin:/bin", "GLIBC_TUNABLES": "", "SWIFT_DETERMINISTIC_HASHING": "1", "LC_ALL": "C"}
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", str(tool), *args]
    result = subprocess.run(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {result.returncode}:\n{result.stderr[-2000:]}")
    found = re.search(r"Collected : (\d+)", result.stderr)
    if not found:
        raise RuntimeError(f"no count in callgrind's report for {' '.join(args)}:\n{result.stderr[-2000:]}")
    out_file.unlink(missing_ok=True)
    return int(found.group(1))


def toolchain() -> str:
    """The Swift toolchain's version line (the counts belong to it)."""
    try:
        text = subprocess.run(["swift", "--version"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return text.splitlines()[0].strip() if text else "unknown"


def read_baseline(path: Path) -> tuple[dict[str, str], dict[str, int]]:
    """The header fields (`# key: value`) and the counts (`name<TAB>instructions`)."""
    header: dict[str, str] = {}
    counts: dict[str, int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            header[key.strip()] = value.strip()
        elif line.strip():
            name, count = line.split("\t")
            counts[name] = int(count)
    return header, counts


def write_baseline(path: Path, counts: dict[str, int], cores: int) -> None:
    lines = [
        "# instruction counts of archive-tool's conversions (scripts/ci/check_instructions.py --update)",
        f"# toolchain: {toolchain()}",
        "# build: swift build -c release --static-swift-stdlib",
        f"# cores: {cores}",
    ]
    lines += [f"{name}\t{count}" for name, count in counts.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def baseline_reason_missing() -> str | None:
    """The last commit that changed the baseline, when its message lacks the trailer."""
    relative = BASELINE.relative_to(REPO)
    try:
        log = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%H%n%B", "--", str(relative)], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None  # not a git checkout: nothing to check
    if not log.strip():
        return None  # not committed yet
    commit, _, message = log.partition("\n")
    if any(line.startswith(TRAILER) and line[len(TRAILER):].strip() for line in message.splitlines()):
        return None
    return commit[:12]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", type=Path, default=REPO / ".build" / "release", help="folder holding archive-tool")
    parser.add_argument("--update", action="store_true", help="write the measured counts as the baseline")
    parser.add_argument("--jobs", type=int, default=2, help="rows measured at once (counts do not depend on it)")
    options = parser.parse_args()

    tool = (options.bin_dir / "archive-tool").resolve()
    if not tool.is_file():
        print(f"check_instructions: no archive-tool in {options.bin_dir}", file=sys.stderr)
        return 2
    if shutil.which("valgrind") is None:
        print("check_instructions: valgrind missing (apt-get install -y valgrind)", file=sys.stderr)
        return 2
    cores = os.cpu_count() or 1

    with tempfile.TemporaryDirectory(prefix="instructions.") as scratch:
        work = Path(scratch)
        rows = generate_inputs(tool, work)
        runs = [(row.name, args) for row in rows for args in row.runs]
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            futures = [pool.submit(count_instructions, tool, args, work, index) for index, (_, args) in enumerate(runs)]
            measured: dict[str, int] = {row.name: 0 for row in rows}
            for (name, _), future in zip(runs, futures, strict=True):
                measured[name] += future.result()
        sizes = {row.name: row.input_bytes for row in rows}

    if options.update:
        write_baseline(BASELINE, measured, cores)
        print(f"wrote {BASELINE.relative_to(REPO)}; commit it with a line '{TRAILER} <why>' in the message")
        for name, count in measured.items():
            print(f"  {name:<40} {count:>14,}  {count / sizes[name]:>7.0f} per byte of the binary document")
        return 0

    if not BASELINE.is_file():
        print(f"check_instructions: no baseline at {BASELINE}; run with --update", file=sys.stderr)
        return 2
    header, baseline = read_baseline(BASELINE)
    failed = False
    unexplained = baseline_reason_missing()
    if unexplained:
        print(f"FAIL commit {unexplained} changed {BASELINE.relative_to(REPO)} without a '{TRAILER} <why>' line in its message")
        failed = True
    if header.get("toolchain") != toolchain():
        print(f"FAIL the baseline was measured with '{header.get('toolchain')}', this is '{toolchain()}': remeasure with --update")
        failed = True
    if header.get("cores") != str(cores):
        print(f"note: the baseline was measured on {header.get('cores')} cores, this machine has {cores}")

    print(f"{'row':<40} {'baseline':>14} {'now':>14} {'change':>8} {'per byte':>9}")
    for name, count in measured.items():
        before = baseline.get(name)
        if before is None:
            print(f"{name:<40} {'—':>14} {count:>14,} {'':>8} {count / sizes[name]:>9.0f}  FAIL not in the baseline: remeasure with --update")
            failed = True
            continue
        change = count / before - 1
        verdict = ""
        if change > TOLERANCE:
            verdict = f"FAIL more than {TOLERANCE:.0%} over the baseline"
            failed = True
        elif change < -TOLERANCE:
            verdict = "lower: commit the new counts (--update) to keep the gain"
        print(f"{name:<40} {before:>14,} {count:>14,} {change:>+8.2%} {count / sizes[name]:>9.0f}  {verdict}")
    for name in baseline.keys() - measured.keys():
        print(f"{name:<40} in the baseline but no longer measured: remeasure with --update")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
