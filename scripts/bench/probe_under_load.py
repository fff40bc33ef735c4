#!/usr/bin/env python3
"""/healthz latency while conversions take every core: CLIENTS clients each POST a large archive
to /v1/decode again and again for SECONDS seconds (two workers convert, the rest wait in the
queue), while a prober in a process of its own (the GIL would otherwise delay its timing) opens
a fresh connection to /healthz every 20 ms. Prints the probe's p50, p99 and worst latency and the
decodes' statuses. Bounded: SECONDS plus the last decodes' time.

Usage: scripts/bench/probe_under_load.py PORT ARCHIVE [--clients 16] [--seconds 20]
The server is started by the caller (scripts/bench/probe_under_load.sh starts one per setting).
"""
import argparse
import collections
import multiprocessing
import os
import socket
import threading
import time


def read_all(s):
    chunks = []
    while True:
        chunk = s.recv(1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def probe(port, stop, results, nice):
    if nice is not None:
        os.setpriority(os.PRIO_PROCESS, 0, nice)
    latencies, failed = [], 0
    while not stop.is_set():
        started = time.monotonic()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if not read_all(s).startswith(b"HTTP/1.1 200"):
                    raise OSError("not 200")
            latencies.append(time.monotonic() - started)
        except OSError:
            failed += 1
        time.sleep(max(0.0, 0.02 - (time.monotonic() - started)))
    results.put((latencies, failed))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("archive")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients-nice", type=int, help="niceness of the load's process (the prober keeps its own)")
    parser.add_argument("--prober-nice", type=int, help="niceness of the prober's process")
    args = parser.parse_args()
    body = open(args.archive, "rb").read()
    head = b"POST /v1/decode HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
    statuses = collections.Counter()
    lock = threading.Lock()
    end = time.monotonic() + args.seconds

    def client():
        # The reply is read into one reused buffer and dropped: the load's own CPU stays small
        # next to the server's (replies of a 47 MB save are ~150 MB).
        scratch = bytearray(1 << 20)
        while time.monotonic() < end:
            try:
                with socket.create_connection(("127.0.0.1", args.port), timeout=300) as s:
                    s.sendall(head)
                    s.sendall(body)
                    first = s.recv(64)
                    status = first[9:12].decode(errors="replace")
                    while s.recv_into(scratch):
                        pass
            except OSError as error:
                status = type(error).__name__
            with lock:
                statuses[status] += 1

    stop, results = multiprocessing.Event(), multiprocessing.Queue()
    prober = multiprocessing.Process(target=probe, args=(args.port, stop, results, args.prober_nice))
    prober.start()
    if args.clients_nice is not None:
        os.setpriority(os.PRIO_PROCESS, 0, args.clients_nice)
    threads = [threading.Thread(target=client) for _ in range(args.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    latencies, failed = results.get()
    prober.join()
    latencies.sort()

    def pick(q):
        return latencies[min(len(latencies) - 1, int(len(latencies) * q))] * 1000 if latencies else float("nan")

    shown = " ".join(f"{k}x{v}" for k, v in sorted(statuses.items()))
    print(f"probes {len(latencies)} (failed {failed}): p50 {pick(0.5):.1f} ms, p99 {pick(0.99):.1f} ms, worst {pick(1.0):.1f} ms; decodes {shown}")


if __name__ == "__main__":
    main()
