#!/usr/bin/env python3
"""Side-by-side timing that survives this VM's phases: runs each command in turn, round after
round (not one command's batch after another's), reading FILE into the page cache before every
run, and prints the median, mean and fastest wall time of each. Output goes to /dev/null.

Usage: scripts/bench/bench_interleaved.py ROUNDS FILE "COMMAND 1" "COMMAND 2" ...
e.g.   scripts/bench/bench_interleaved.py 20 bench-out/game-50mb-s2020.bin \\
         "/tmp/base-tool decode bench-out/game-50mb-s2020.bin" \\
         ".build/release/archive-tool decode bench-out/game-50mb-s2020.bin"

The first two rounds warm up and are not counted.
"""
import argparse
import shlex
import statistics
import subprocess
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rounds", metavar="ROUNDS", type=int, help="rounds counted (two more warm up)")
    parser.add_argument("cache_file", metavar="FILE", help="read into the page cache before every run")
    parser.add_argument("commands", metavar="COMMAND", nargs="+", help="a command line, split as the shell would")
    args = parser.parse_args()
    rounds, cache_file, commands = args.rounds, args.cache_file, args.commands
    times = {command: [] for command in commands}
    with open("/dev/null", "wb") as sink:
        for round_number in range(rounds + 2):
            for command in commands:
                subprocess.run(["cat", cache_file], stdout=sink, check=True)
                start = time.perf_counter()
                subprocess.run(shlex.split(command), stdout=sink, check=False)
                if round_number >= 2:
                    times[command].append((time.perf_counter() - start) * 1000)
    for command, values in times.items():
        print(f"median {statistics.median(values):7.1f} ms  mean {statistics.mean(values):7.1f}  "
              f"min {min(values):7.1f}  {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
