#!/usr/bin/env python3
"""Hostile and merely heavy clients against a running archive-service, on loopback only.

Run by scripts/attack/attack.sh, which builds and starts the server; stops by itself. For each attack
it prints the statuses the attackers saw, the server's peak RSS during the attack (sampled
every 10 ms from /proc), /healthz latency (a fresh connection every 100 ms; p99 and worst; a
probe without an answer in 2 s counts as failed) and whether the server survived.

  scripts/attack/attack.py PORT PID DATA_DIR [--short]

DATA_DIR holds the inputs attack.sh made (a game save of ~30 MB, or ~4 MB with --short).
Exit status 1 if the server died, a probe failed or took 100 ms or more, or a desync showed.
"""
import argparse
import collections
import multiprocessing
import os
import plistlib
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gen"))
import gen_typedstream_shapes as shapes  # the typedstream inputs, made here

_parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
_parser.add_argument("port", metavar="PORT", type=int, help="the server's port on 127.0.0.1")
_parser.add_argument("pid", metavar="PID", type=int, help="the server's process id (RSS, liveness)")
_parser.add_argument("data", metavar="DATA_DIR", help="the inputs attack.sh made")
_parser.add_argument("--short", action="store_true", help="smaller inputs and fewer clients (CI)")
_args = _parser.parse_args()
PORT, PID, DATA, SHORT = _args.port, _args.pid, _args.data, _args.short
failures = []


def rss_kb(field):
    try:
        with open(f"/proc/{PID}/status") as status:
            for line in status:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        return 0
    return 0


def alive():
    try:
        os.kill(PID, 0)
        return True
    except OSError:
        return False


def probe(stop, results):
    """In its own process, so the attackers' threads never delay a probe's measurement."""
    latencies, failed = [], 0
    while not stop.is_set():
        started = time.monotonic()
        try:
            with socket.create_connection(("127.0.0.1", PORT), timeout=2) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                answer = read_all(s)
            if not answer.startswith(b"HTTP/1.1 200"):
                raise OSError(answer[:40])
            latencies.append(time.monotonic() - started)
        except OSError:
            failed += 1
        time.sleep(max(0.0, 0.1 - (time.monotonic() - started)))
    results.put((latencies, failed))


class Watch:
    """Samples RSS and probes /healthz while an attack runs."""

    def __init__(self):
        self.stop = threading.Event()
        self.peak = rss_kb("VmRSS:")
        self.sampler = threading.Thread(target=self.sample)
        self.sampler.start()
        self.probe_stop, self.results = multiprocessing.Event(), multiprocessing.Queue()
        self.prober = multiprocessing.Process(target=probe, args=(self.probe_stop, self.results))
        self.prober.start()

    def sample(self):
        while not self.stop.is_set():
            self.peak = max(self.peak, rss_kb("VmRSS:"))
            time.sleep(0.01)

    def finish(self):
        self.stop.set()
        self.probe_stop.set()
        self.latencies, self.failed = self.results.get()
        self.prober.join()
        self.sampler.join()
        lat = sorted(self.latencies) or [0.0]
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        return self.peak, p99, lat[-1], len(lat), self.failed


def read_all(s, limit=None):
    chunks, total = [], 0
    while True:
        try:
            chunk = s.recv(65536)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if limit and total >= limit:
            break
    return b"".join(chunks)


def status_of(answer):
    if answer.startswith(b"HTTP/1.1 "):
        return answer[9:12].decode()
    return "none" if not answer else "garbage"


def request(head, body=b"", timeout=120, send_body=True):
    try:
        with socket.create_connection(("127.0.0.1", PORT), timeout=timeout) as s:
            s.sendall(head)
            if send_body and body:
                try:
                    view = memoryview(body)
                    for offset in range(0, len(body), 1 << 20):
                        s.sendall(view[offset:offset + (1 << 20)])
                except (BrokenPipeError, ConnectionResetError):
                    pass
            return status_of(read_all(s, limit=1 << 16))
    except OSError as error:
        return type(error).__name__


def post(path, body, extra=b""):
    head = b"POST %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n%s\r\n" % (
        path.encode(), len(body), extra)
    return request(head, body)


def parallel(count, job):
    results = collections.Counter()
    lock = threading.Lock()

    def run():
        status = job()
        with lock:
            results[status] += 1

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def attack(name, run):
    watch = Watch()
    started = time.monotonic()
    try:
        statuses = run()
    finally:
        peak, p99, worst, probes, failed = watch.finish()
    survived = alive()
    # A row's own check names what went wrong in capitals (an echoed id, a reply too long).
    flagged = isinstance(statuses, collections.Counter) and any(
        word in key for key in statuses for word in ("ECHOED", "SNIFFABLE", "TOO-LONG"))
    ok = survived and failed == 0 and worst < 0.1 and not flagged
    if not ok:
        failures.append(name)
    shown = " ".join(f"{k}x{v}" for k, v in sorted(statuses.items())) if isinstance(statuses, collections.Counter) else statuses
    print(f"| {name} | {shown} | {peak / 1024:.0f} | {p99 * 1000:.1f} / {worst * 1000:.1f} ({probes} probes, {failed} failed) "
          f"| {'yes' if survived else 'NO'} | {time.monotonic() - started:.1f} |", flush=True)


def amplified_archive():
    """30,000 references to one 2 KB string: a 32 KB archive whose JSON is ~60 MB."""
    text = "x" * 2048
    objects = ["$null", {"NS.objects": [plistlib.UID(2)] * 30000, "$class": plistlib.UID(3)}, text,
               {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]}]
    return plistlib.dumps({"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": plistlib.UID(1)},
                           "$objects": objects}, fmt=plistlib.FMT_BINARY)


def shared_entries(count):
    """`count` $objects entries that are all one object: one byte of reference each, and a
    decode's tables by the entry (about 64 bytes each)."""
    objects = ["$null", {"NS.objects": [], "$class": plistlib.UID(2)},
               {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]}] + [True] * count
    return plistlib.dumps({"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": plistlib.UID(1)},
                           "$objects": objects}, fmt=plistlib.FMT_BINARY)


def never_reading(archive, hold):
    """Sends a decode and never reads the reply; keeps the connection for `hold` seconds."""
    try:
        s = socket.create_connection(("127.0.0.1", PORT), timeout=hold + 5)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(b"POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(archive) + archive)
        time.sleep(hold)
        answer = s.recv(64)
        s.close()
        return status_of(answer)
    except OSError as error:
        return type(error).__name__


def slow_headers(count, seconds):
    """`count` connections sending one header byte per second."""
    sockets = []
    for _ in range(count):
        try:
            s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
            s.setblocking(False)
            sockets.append(s)
        except OSError:
            pass
    text = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 200
    results = collections.Counter()
    for second in range(seconds):
        for s in list(sockets):
            try:
                s.send(text[second % len(text):second % len(text) + 1])
            except OSError:
                pass
        time.sleep(1)
    for s in sockets:
        try:
            s.setblocking(True)
            s.settimeout(0.2)
            results[status_of(s.recv(64))] += 1
        except OSError as error:
            results[type(error).__name__] += 1
        s.close()
    return results


def stray_signals():
    """SIGHUP, SIGUSR1, SIGUSR2 and SIGALRM, each followed by a /healthz: the service logs and
    ignores them (their default is a silent death)."""
    import signal
    results = collections.Counter()
    for number in [signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM]:
        os.kill(PID, number)
        time.sleep(0.2)
        status = request(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout=5)
        results[f"{number.name}:{status}"] += 1
    return results


def nested_amplifiers(archive, copies):
    """A property list holding `copies` amplifying archives in its data, decoded with nested=1:
    each would stand for ~60 MB of JSON; the whole must stay within the output limit."""
    listing = plistlib.dumps({f"blob{index}": archive for index in range(copies)}, fmt=plistlib.FMT_BINARY)
    return post("/v1/decode?nested=1", listing)


def repeated_data(megabytes, references):
    """A plain plist whose one data value (`megabytes` of bytes) is referenced `references`
    times: its readable view repeats the value's base64 at every reference, so the outer text of
    a nested decode is many times the body (what the budget must see as it grows)."""
    blob = os.urandom(megabytes << 20)
    # plistlib writes equal bytes once and refers to them from every key.
    return plistlib.dumps({f"k{index}": blob for index in range(references)}, fmt=plistlib.FMT_BINARY)


def huge_name(megabytes):
    """An XML plist whose one element name is `megabytes` long: the 400 must quote little of it."""
    name = b"e" * (megabytes << 20)
    body = b'<?xml version="1.0"?><plist version="1.0"><' + name + b"/></plist>"
    head = b"POST /v1/decode HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
    with socket.create_connection(("127.0.0.1", PORT), timeout=60) as s:
        s.sendall(head)
        s.sendall(body)
        answer = read_all(s)
    size = len(answer) - answer.find(b"\r\n\r\n") - 4
    return collections.Counter([f"{status_of(answer)}({size}B)" if size < 2048 else f"{status_of(answer)}(TOO-LONG:{size}B)"])


def hostile_request_id():
    """A request id of markup: replaced by the server's own; every reply says nosniff."""
    with socket.create_connection(("127.0.0.1", PORT), timeout=10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Request-Id: <script>alert(1)</script>\r\n\r\n")
        answer = read_all(s)
    head = answer.split(b"\r\n\r\n", 1)[0].lower()
    echoed = b"<script>" in head
    sniffing = b"x-content-type-options: nosniff" not in head
    return collections.Counter([f"{status_of(answer)}:{'ECHOED' if echoed else 'replaced'}:{'SNIFFABLE' if sniffing else 'nosniff'}"])


def typedstream_rows():
    """Typedstreams whose declared sizes or class chains once cost memory or time out of
    proportion to their bytes: each must be answered (a refusal for the declared counts) within
    the budget and in time linear in the input."""
    json_head = b"Content-Type: application/json\r\n"
    counts = [shapes.render("declared-count", n) for n in (100_000_000, 999_999_999)]
    attack("typedstream declared counts [100000000i] and [999999999i] to encode (39 and 40 bytes)", lambda: collections.Counter(
        [post("/v1/encode", body, json_head) for body in counts]))
    chain = shapes.render("chain-json", 5000)
    attack(f"typedstream class chain of 5,000 links of 100-byte names to encode ({len(chain) // 1000} KB)",
           lambda: collections.Counter([post("/v1/encode", chain, json_head)]))
    stream = shapes.render("chain-stream", 40_000)
    attack(f"typedstream class chain of 40,000 links to decode and summarise ({len(stream) // 1000} KB)", lambda: collections.Counter(
        ["decode:" + post("/v1/decode", stream), "summary:" + post("/v1/decode?view=summary", stream)]))
    if not SHORT:
        dictionary = shapes.render("dictionary-json", 1_000_000)
        attack(f"2 concurrent encodes of a typedstream NSDictionary of 1M keys ({len(dictionary) / 1e6:.1f} MB each)",
               lambda: parallel(2, lambda: post("/v1/encode", dictionary, json_head)))


def desync():
    hidden = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
    results = collections.Counter()
    for method in [b"HEAD", b"TRACE", b"PROPFIND"]:
        with socket.create_connection(("127.0.0.1", PORT), timeout=10) as s:
            s.sendall(method + b" /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(hidden) + hidden
                      + b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = read_all(s)
        if b"# HELP" in answer:
            results["DESYNC"] += 1
            failures.append("desync")
        results[" ".join(part[:3].decode() for part in answer.split(b"HTTP/1.1 ")[1:])] += 1
    with socket.create_connection(("127.0.0.1", PORT), timeout=10) as s:
        s.sendall(b"CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = read_all(s)
    results["CONNECT:" + " ".join(part[:3].decode() for part in answer.split(b"HTTP/1.1 ")[1:])] += 1
    return results


def smuggling():
    """Framing headers spelled with Unicode look-alikes (the Kelvin sign for K, dotless and dotted
    i in the name, the long s for s in `close`) over a "chunk" that hides a request: the guard
    must refuse each (400), never let libevent read the hidden request."""
    hidden = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
    results = collections.Counter()
    for header in ["Transfer-Encoding: chun\u212Aed", "Transfer-Encod\u0131ng: chunked", "Transfer-Encod\u0130ng: chunked",
                   "Transfer-Encoding: chunked\r\nConnection: clo\u017Fe"]:
        with socket.create_connection(("127.0.0.1", PORT), timeout=10) as s:
            s.sendall(b"POST /healthz HTTP/1.1\r\nHost: x\r\n" + header.encode() + b"\r\n\r\n"
                      + b"%x\r\n" % len(hidden) + hidden + b"\r\n0\r\n\r\n")
            answer = read_all(s)
        if b"# HELP" in answer:
            failures.append("smuggling")
            results["SMUGGLED"] += 1
        results[" ".join(part[:3].decode() for part in answer.split(b"HTTP/1.1 ")[1:])] += 1
    return results


def head_only_holds(count, announced):
    """`count` connections each sending only a head that announces `announced` bytes of decode
    body (together far more than the memory budget), then a real decode: it must be served."""
    holders = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
        s.sendall(b"POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % announced)
        holders.append(s)
    time.sleep(0.5)
    results = collections.Counter()
    results["decode:" + post("/v1/decode", open(os.path.join(DATA, "save.bplist"), "rb").read())] += 1
    results["readyz:" + request(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout=5)] += 1
    for s in holders:
        s.close()
    if results["decode:200"] != 1 or results["readyz:200"] != 1:
        failures.append("head-only holds")
    return results


def slow_bodies(count):
    """`count` connections (past the 1,024 descriptors) each sending a head and one byte of a
    two-byte body, then 40 /healthz: the slowest bodies make room, every probe is answered."""
    flood = []
    for _ in range(count):
        try:
            s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
            s.sendall(b"POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nb")
            flood.append(s)
        except OSError:
            pass
    results = collections.Counter()
    for _ in range(40):
        results["healthz:" + request(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout=5)] += 1
    for s in flood:
        s.close()
    if results["healthz:200"] != 40:
        failures.append("slow bodies at the connection limit")
    return results


def oversized_chunks(tries):
    """A chunk size past --max-body-size, a malformed trailer, a bad absolute-form authority:
    exactly one reply each, a problem document (never libevent's HTML as well or instead)."""
    chunked = b"POST /v1/decode HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    cases = [chunked + b"FFFFFFF\r\n"] * tries + [chunked + b"0\r\nNo colon\r\n\r\n", b"GET http://[x/healthz HTTP/1.1\r\nHost: x\r\n\r\n"]
    results = collections.Counter()
    for raw in cases:
        with socket.create_connection(("127.0.0.1", PORT), timeout=10) as s:
            s.sendall(raw)
            answer = read_all(s)
        replies = answer.count(b"HTTP/1.1 ")
        kind = "problem" if b"application/problem+json" in answer else "OTHER"
        if replies != 1 or kind != "problem":
            failures.append("libevent answered")
        results[f"{replies}x{status_of(answer)}:{kind}"] += 1
    return results


def sigterm_mid_upload():
    """SIGTERM while 4 bodies are arriving (two finish after it, two never do): every request
    that started gets a reply (200 for the finished, 503 shutting-down for the rest). Ends the
    server: the last row."""
    save = open(os.path.join(DATA, "save.bplist"), "rb").read()
    sockets = []
    for _ in range(4):
        s = socket.create_connection(("127.0.0.1", PORT), timeout=60)
        s.sendall(b"POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(save) + save[:1000])
        sockets.append(s)
    time.sleep(0.3)
    os.kill(PID, 15)
    time.sleep(0.3)
    for s in sockets[:2]:
        s.sendall(save[1000:])
    results = collections.Counter()
    for s in sockets:
        answer = read_all(s, limit=1 << 16)
        results[status_of(answer)] += 1
        s.close()
    if results["200"] != 2 or results["503"] != 2:
        failures.append("SIGTERM mid-upload")
    return results


def main():
    save = open(os.path.join(DATA, "save.bplist"), "rb").read()
    junk = os.urandom(len(save))
    empties = b"[" + b"[]," * ((1 << 20 if SHORT else 8 << 20) // 3) + b"[]]"
    amplified = amplified_archive()
    n, big = (4, 8) if SHORT else (16, 32)
    print(f"save {len(save) / 1e6:.1f} MB, junk {len(junk) / 1e6:.1f} MB, amplifier {len(amplified) / 1e3:.0f} KB, "
          f"empties {len(empties) / 1e6:.1f} MB; idle RSS {rss_kb('VmRSS:') / 1024:.0f} MiB")
    print("| attack | statuses | peak RSS MiB | /healthz p99 / worst ms | survived | seconds |")
    print("|---|---|---|---|---|---|")
    attack(f"{n} concurrent {len(save) / 1e6:.0f} MB decodes", lambda: parallel(n, lambda: post("/v1/decode", save)))
    attack(f"{n} x {len(junk) / 1e6:.0f} MB junk bodies", lambda: parallel(n, lambda: post("/v1/decode", junk)))
    attack(f"{big} concurrent {len(save) / 1e6:.0f} MB decodes", lambda: parallel(big, lambda: post("/v1/decode", save)))
    dense = shared_entries((1 if SHORT else 6) << 20)
    attack(f"{n} decodes of a {len(dense) / 1e6:.0f} MB archive of {len(dense) / 1e6:.0f} M entries sharing one object",
           lambda: parallel(n, lambda: post("/v1/decode", dense)))
    attack(f"{n // 2 if SHORT else 16} clients never reading a 60 MB reply of a {len(amplified) // 1000} KB archive",
           lambda: parallel(n // 2 if SHORT else 16, lambda: never_reading(amplified, 5 if SHORT else 20)))
    attack(f"{len(empties) / 1e6:.0f} MB of [[],[],...] to encode?format=xml", lambda: collections.Counter(
        [post("/v1/encode?format=xml", empties, b"Content-Type: application/json\r\n")]))
    slow = 200 if SHORT else 2000
    attack(f"{slow} connections sending a header byte a second", lambda: slow_headers(slow, 4 if SHORT else 15))
    attack("HEAD/TRACE/unknown with a body, then CONNECT", desync)
    typedstream_rows()
    attack(f"{n} decodes?nested=1 of a plist holding 8 amplifying archives",
           lambda: parallel(n, lambda: nested_amplifiers(amplified, 8)))
    dense_inside = plistlib.dumps({"blob": dense}, fmt=plistlib.FMT_BINARY)
    attack(f"{n} decodes?nested=1 of a plist holding that {len(dense) / 1e6:.0f} MB archive in its data",
           lambda: parallel(n, lambda: post("/v1/decode?nested=1", dense_inside)))
    repeated = repeated_data(4 if SHORT else 30, 16)
    attack(f"2 decodes?nested=1 of a {len(repeated) / 1e6:.0f} MB plist whose one data value is referenced 16 times",
           lambda: parallel(2, lambda: post("/v1/decode?nested=1", repeated)))
    attack(f"a {4 if SHORT else 30} MB XML element name (the 400's size)", lambda: huge_name(4 if SHORT else 30))
    attack("X-Request-Id of markup", hostile_request_id)
    attack("SIGHUP, SIGUSR1, SIGUSR2, SIGALRM", stray_signals)
    attack("absolute-form and #fragment targets with Content-Length 2^40", lambda: collections.Counter([
        request(b"POST http://x/v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 1099511627776\r\n\r\n", timeout=10),
        request(b"POST /v1/decode#f HTTP/1.1\r\nHost: x\r\nContent-Length: 1099511627776\r\n\r\n", timeout=10)]))
    attack("body over --max-body-size", lambda: collections.Counter([post("/v1/decode", b"\0" * (40 << 20))]))
    attack("Content-Length 2^63 / 100 MB with Expect, no body", lambda: collections.Counter([
        request(b"POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 9223372036854775808\r\nExpect: 100-continue\r\n\r\n", timeout=10),
        request(b"POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 104857600\r\nExpect: 100-continue\r\n\r\n", timeout=10),
        request(b"POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 104857600\r\n\r\n", timeout=10)]))
    attack("two different Content-Lengths", lambda: collections.Counter([
        request(b"POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 50\r\n\r\nbplist00")]))
    attack("Transfer-Encoding with Unicode look-alikes over a hidden request", smuggling)
    attack("4 heads announcing 250 MB decode bodies (8x the budget), sending nothing, then a decode",
           lambda: head_only_holds(4, 32 << 20))
    attack("1100 connections each sending a head and 1 byte of a 2-byte body, then 40 /healthz",
           lambda: slow_bodies(1100))
    attack("chunk size over --max-body-size (x10), malformed trailer, bad authority", lambda: oversized_chunks(10))
    print(f"process peak (VmHWM over the whole run): {rss_kb('VmHWM:') / 1024:.0f} MiB")
    with socket.create_connection(("127.0.0.1", PORT), timeout=10) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        for line in read_all(s).decode(errors="replace").splitlines():
            if line.startswith(("archive_rejections_total", "archive_memory_reserved_high", "archive_connections ")):
                print(line)
    # Last: it ends the server (the watch would count its probes as failures, so no `attack`).
    started = time.monotonic()
    statuses = sigterm_mid_upload()
    print(f"| SIGTERM while 4 bodies arrive (2 finish after it) | {' '.join(f'{k}x{v}' for k, v in sorted(statuses.items()))} "
          f"| - | - | exits | {time.monotonic() - started:.1f} |", flush=True)
    if failures:
        print("FAILED:", ", ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
