#!/usr/bin/env python3
"""Writes a keyed archive holding a linked list of DEPTH `Node` objects (each `next` points
at the following one), optionally closing it into a cycle. Used to measure stack cost per
level and to exercise the depth probe.

Usage: gen_chain.py DEPTH [cyclic] > chain.bplist"""
import argparse
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
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("depth", metavar="DEPTH", type=int, help="number of Node objects in the list")
    parser.add_argument("cyclic", nargs="?", choices=["cyclic"], help="point the last node back at the first")
    args = parser.parse_args()
    depth, cyclic = args.depth, args.cyclic == "cyclic"
    sys.stdout.buffer.write(plistlib.dumps(chain(depth, cyclic), fmt=plistlib.FMT_BINARY, sort_keys=False))
