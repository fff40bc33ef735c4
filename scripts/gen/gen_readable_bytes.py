#!/usr/bin/env python3
"""Writes a keyed archive whose values are mostly bytes the readable view writes as numbers
(docs/mapping.md, "Readable bytes"), the worst case of that work: an NSArray of N NSColors
(NSRGB component text, as AppKit spells it with %.10g), N/4 attributed strings (NSAttributeInfo
runs in an NSMutableData) and N/4 index sets (NSRangeData ranges). Deterministic (seed 2020).

Usage: gen_readable_bytes.py OUT [N]   (N: default 200,000; about 35 MB)
"""
import argparse
import plistlib
import random


def varints(values):
    out = bytearray()
    for value in values:
        while value >= 0x80:
            out.append(value & 0x7F | 0x80)
            value >>= 7
        out.append(value)
    return bytes(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("n", nargs="?", type=int, default=200_000)
    args = parser.parse_args()
    rng = random.Random(2020)
    objects = ["$null", None]
    classes = {}

    def class_uid(name, chain):
        if name not in classes:
            objects.append({"$classname": name, "$classes": chain})
            classes[name] = len(objects) - 1
        return plistlib.UID(classes[name])

    def add(value):
        objects.append(value)
        return plistlib.UID(len(objects) - 1)

    items = []
    for _ in range(args.n):
        rgb = " ".join("%.10g" % (rng.randrange(256) / 255) for _ in range(3)) + "\0"
        items.append(add({"$class": class_uid("NSColor", ["NSColor", "NSObject"]), "NSColorSpace": 1, "NSRGB": rgb.encode()}))
    data_class = ["NSMutableData", "NSData", "NSObject"]
    for index in range(args.n // 4):
        runs = [rng.randrange(1, 9) for _ in range(3)]
        info = add({"$class": class_uid("NSMutableData", data_class), "NS.data": varints([runs[0], 0, runs[1], 1, runs[2], 0])})
        text = add("x" * sum(runs))
        attributes = add({"$class": class_uid("NSArray", ["NSArray", "NSObject"]), "NS.objects": [add("bold"), add("italic")]})
        items.append(add({"$class": class_uid("NSAttributedString", ["NSAttributedString", "NSObject"]),
                          "NSString": text, "NSAttributeInfo": info, "NSAttributes": attributes}))
        ranges = add({"$class": class_uid("NSMutableData", data_class), "NS.data": varints([index, 5, index + 100, 7])})
        items.append(add({"$class": class_uid("NSIndexSet", ["NSIndexSet", "NSObject"]), "NSRangeCount": 2, "NSRangeData": ranges}))
    objects[1] = {"$class": class_uid("NSArray", ["NSArray", "NSObject"]), "NS.objects": items}
    with open(args.out, "wb") as out:
        plistlib.dump({"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": plistlib.UID(1)}, "$objects": objects},
                      out, fmt=plistlib.FMT_BINARY)


if __name__ == "__main__":
    main()
