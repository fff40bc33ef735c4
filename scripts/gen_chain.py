#!/usr/bin/env python3
"""Writes a keyed archive holding a linked list of DEPTH `Node` objects (each `next` points
at the following one), optionally closing it into a cycle. Used to measure stack cost per
level and to exercise the depth probe."""
import plistlib
import sys

def chain(depth, cyclic=False):
    objects = ["$null"]
    class_uid = depth + 1
    for i in range(depth):
        nxt = i + 2 if i + 1 < depth else (1 if cyclic else 0)
        objects.append({"$class": plistlib.UID(class_uid), "next": plistlib.UID(nxt), "n": i})
    objects.append({"$classname": "Node", "$classes": ["Node", "NSObject"]})
    return {"$archiver": "NSKeyedArchiver", "$version": 100000,
            "$top": {"root": plistlib.UID(1)}, "$objects": objects}

if __name__ == "__main__":
    depth = int(sys.argv[1])
    cyclic = len(sys.argv) > 2 and sys.argv[2] == "cyclic"
    sys.stdout.buffer.write(plistlib.dumps(chain(depth, cyclic), fmt=plistlib.FMT_BINARY, sort_keys=False))
