#!/usr/bin/env python3
"""Writes the hostile archives and documents found by reviewing the codec into DIR, each
small, each once able to cost far more time or memory than its size (the regression set
of scripts/attack/hostile_check.sh):

  shared_entries.bplist  8,000 $objects entries that are one 200 KB string (identity hashing)
  long_keys.bplist       5,000 dictionaries sharing 12 long keys differing at the end
  oset_key.bplist        8,000 ordered sets sharing one dictionary with a 100 KB key
  amplified.bplist       100,000 references to one 1,000-character string (100 MB of JSON)
  amplified_raw.bplist   the same through plist-level sharing (the raw view repeats it)
  pretty_wide.json       1,000 levels of $dict pairs with 20,000 nulls at the bottom
  flat_arrays.json       [[],[],...] of 1 MB (500,000 objects to encode)
  nan_payloads.bplist    two NaNs with different bit patterns (must not merge silently)
  deep_inline.json       200,000 nested $inline containers (XML indentation was quadratic)

Usage: gen_hostile.py DIR
"""
import argparse
import os
import plistlib
import struct


def archive(objects, top=None, **extra):
    envelope = {"$archiver": "NSKeyedArchiver", "$version": 100000,
                "$top": top if top is not None else {"root": plistlib.UID(1)}, "$objects": objects}
    envelope.update(extra)
    return plistlib.dumps(envelope, fmt=plistlib.FMT_BINARY)


def array_class():
    return {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", metavar="DIR", help="folder to write the inputs into (made if missing)")
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)

    def write(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())

    write("shared_entries.bplist", archive(
        ["$null", {"$class": plistlib.UID(2), "NS.objects": []}, array_class()] + ["y" * 200_000] * 8_000))
    keys = ["k" * 59_998 + "%02d" % i for i in range(12)]
    write("long_keys.bplist", archive(["$null"], top={}, pad=[{k: 0 for k in keys} for _ in range(5_000)]))
    member = {"$class": plistlib.UID(2), "NS.object." + "0" * 100_000: plistlib.UID(0)}
    write("oset_key.bplist", archive(
        ["$null", {"$class": plistlib.UID(3), "NS.objects": []},
         {"$classname": "NSOrderedSet", "$classes": ["NSOrderedSet", "NSObject"]}, array_class()] + [member] * 8_000))
    write("amplified.bplist", archive(
        ["$null", {"$class": plistlib.UID(3), "NS.objects": [plistlib.UID(2)] * 100_000}, "x" * 1_000, array_class()]))
    write("amplified_raw.bplist", archive(
        ["$null", {"$class": plistlib.UID(2), "k": ["z" * 1_000] * 100_000}, {"$classname": "X"}]))
    levels = 1_000
    write("pretty_wide.json", '{"$dict":[[1,' * levels + "[" + ",".join(["null"] * 20_000) + "]" + "]]}" * levels)
    write("flat_arrays.json", "[" + ",".join(["[]"] * 333_000) + "]")
    nan = archive(["$null", {"$class": plistlib.UID(4), "NS.objects": [plistlib.UID(2), plistlib.UID(3)]},
                   1.25, 2.5, array_class()])
    nan = nan.replace(struct.pack(">d", 1.25), struct.pack(">Q", 0x7FF8000000000000))
    nan = nan.replace(struct.pack(">d", 2.5), struct.pack(">Q", 0xFFF8000000000001))
    write("nan_payloads.bplist", nan)
    write("deep_inline.json", '{"$class":"X","k":' + '{"$inline":[' * 200_000 + "1" + "]}" * 200_000 + "}")


if __name__ == "__main__":
    main()
