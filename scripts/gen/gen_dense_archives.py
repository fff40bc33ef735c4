#!/usr/bin/env python3
"""Writes archives whose decode cost is set by their count of objects and `$objects` entries
rather than by their size, into DIR (the inputs of scripts/bench/conversion_memory.sh):

  ints.bplist        N distinct integers (an NSArray of them)
  strings.bplist     N distinct short strings
  instances.bplist   N distinct empty instances of one custom class
  cycle.bplist       N instances, each pointing at the next, the last at the first
  shared.bplist      4N entries that are all one object: one byte of reference each
  shared.xml         the same as an XML plist: one <true/> each
  bigstring.bplist   one 30 MB string and 20 MB of data: few objects, large payloads

Usage: gen_dense_archives.py DIR [N]   (N: default 1,000,000)
"""
import argparse
import os
import plistlib

ARRAY = {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]}
CUSTOM = {"$classname": "X", "$classes": ["X", "NSObject"]}


def archive(objects, fmt=plistlib.FMT_BINARY):
    return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000,
                           "$top": {"root": plistlib.UID(1)}, "$objects": objects}, fmt=fmt)


def array_of(first, count, extra):
    """$objects: $null, an NSArray of entries first..first+count-1, its class, then `extra`."""
    root = {"$class": plistlib.UID(2), "NS.objects": [plistlib.UID(first + i) for i in range(count)]}
    return ["$null", root, ARRAY] + extra


def shared_xml(count):
    """plistlib cannot write UIDs as XML; the envelope is written by hand."""
    uid = "<dict><key>CF$UID</key><integer>%d</integer></dict>"
    head = ('<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>'
            "<key>$archiver</key><string>NSKeyedArchiver</string><key>$version</key><integer>100000</integer>"
            "<key>$top</key><dict><key>root</key>" + uid % 1 + "</dict><key>$objects</key><array>"
            "<string>$null</string><dict><key>$class</key>" + uid % 2 + "<key>NS.objects</key><array/></dict>"
            "<dict><key>$classname</key><string>NSArray</string><key>$classes</key>"
            "<array><string>NSArray</string><string>NSObject</string></array></dict>")
    return (head + "<true/>" * count + "</array></dict></plist>").encode()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", metavar="DIR", help="folder to write the archives into (made if missing)")
    parser.add_argument("n", metavar="N", type=int, nargs="?", default=1_000_000, help="entries per archive (default 1,000,000)")
    args = parser.parse_args()
    out, n = args.out, args.n
    os.makedirs(out, exist_ok=True)
    files = {
        "ints.bplist": archive(array_of(3, n, list(range(n)))),
        "strings.bplist": archive(array_of(3, n, ["s%d" % i for i in range(n)])),
        "instances.bplist": archive(array_of(4, n, [CUSTOM] + [{"$class": plistlib.UID(3)} for _ in range(n)])),
        "cycle.bplist": archive(array_of(4, n, [CUSTOM] + [{"$class": plistlib.UID(3), "n": plistlib.UID(4 + (i + 1) % n)}
                                                         for i in range(n)])),
        # plistlib writes one `true` object and points every entry at it.
        "shared.bplist": archive(["$null", {"$class": plistlib.UID(2), "NS.objects": []}, ARRAY] + [True] * (4 * n)),
        "shared.xml": shared_xml(4 * n),
        "bigstring.bplist": archive(array_of(3, 2, ["x" * 30_000_000, b"\x01" * 20_000_000])),
    }
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
