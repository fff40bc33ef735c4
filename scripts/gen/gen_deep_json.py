#!/usr/bin/env python3
"""Writes a JSON document (readable mapping) nested LEVELS times in one SHAPE to stdout.

Every way the encoder and the readable writer can recurse has a shape here, so that
scripts/bench/measure_stack.sh can measure the stack each one costs per level:

  generic      {"$class":"N","next":{...}}           class instance, reference key
  array        [[...]]                               NSArray
  dict         {"a":{...}}                           NSDictionary, string keys
  wrapper      {"$class":"NSMutableArray","$array":[...]}
  set          {"$set":[...]}
  ordered      {"$orderedSet":[...]}
  pairs        {"$dict":[[1,{...}]]}                 NSDictionary, non-string keys
  plist        {"$plist":[...]}                      plain plist stored as an object
  inline       {"$class":"X","k":{"$inline":[{"$inline":[...]}]}}
               plist containers nested inside one object (not through UIDs)

Usage: gen_deep_json.py SHAPE LEVELS
"""
import argparse
import sys

SHAPES = {
    "generic": ('{"$class":"N","next":', "}"),
    "array": ("[", "]"),
    "dict": ('{"a":', "}"),
    "wrapper": ('{"$class":"NSMutableArray","$array":[', "]}"),
    "set": ('{"$set":[', "]}"),
    "ordered": ('{"$orderedSet":[', "]}"),
    "pairs": ('{"$dict":[[1,', "]]}"),
    "plist": ('{"$plist":[', "]}"),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shape", metavar="SHAPE", choices=list(SHAPES) + ["inline"], help="one of the shapes above")
    parser.add_argument("levels", metavar="LEVELS", type=int, help="how many levels to nest")
    args = parser.parse_args()
    shape, levels = args.shape, args.levels
    out = sys.stdout
    if shape == "inline":
        out.write('{"$class":"X","k":' + '{"$inline":[' * levels + "1" + "]}" * levels + "}")
    elif shape in SHAPES:
        prefix, suffix = SHAPES[shape]
        out.write(prefix * levels + "1" + suffix * levels)
    else:
        sys.exit("unknown shape " + shape + "; one of " + ", ".join(list(SHAPES) + ["inline"]))


if __name__ == "__main__":
    main()
