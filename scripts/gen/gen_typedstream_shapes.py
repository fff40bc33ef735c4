#!/usr/bin/env python3
"""Typedstream inputs of hostile or heavy shapes, as typedstream bytes or as the JSON
`archive-tool encode` reads (docs/mapping.md, "typedstream"). scripts/attack/attack.py imports
these functions; run alone, it writes one input.

  --shape declared-count --count N     {"$typedstream":[{"[Ni]":[1]}]}: an array type that
                                       declares N values and holds one (JSON)
  --shape chain-json --count N         one object whose $classes chain has N links of
                                       100-byte names (JSON)
  --shape chain-stream --count N       the same as a typedstream (bytes), names of 12 bytes
  --shape dictionary-json --count N    a readable NSDictionary of N string keys and integers (JSON)
  --shape objects-json --count N       N small generic objects in one NSArray (JSON)
  --shape strings-json --count N       N groups of 1,000-byte `+` strings (JSON)
  --shape cstrings-json --count N      N groups of distinct `*` C strings (JSON)

Usage: scripts/gen/gen_typedstream_shapes.py --shape SHAPE --count N --out FILE
"""
import argparse
import json
import struct

NEW, NULL, END = 0x84, 0x85, 0x86


def compact(value):
    """A compact integer as Apple's writer spells it (the shortest form)."""
    if -110 <= value <= 127:
        return struct.pack("<b", value)
    if -32767 <= value <= 32767:
        return b"\x81" + struct.pack("<h", value)
    return b"\x82" + struct.pack("<i", value)


def shared(text):
    """A new shared string."""
    return bytes([NEW]) + compact(len(text)) + text


def header():
    return b"\x04\x0bstreamtyped" + compact(1000)


def chain_names(count, width):
    return [(f"C{index:0{width - 1}d}").encode() for index in range(count)]


def chain_stream(count, width=12):
    """One top-level object whose class chain has `count` links (the class first), no groups."""
    out = bytearray(header())
    out += shared(b"@")
    out += bytes([NEW])  # the object
    for name in chain_names(count, width):
        out += bytes([NEW]) + shared(name) + compact(0)
    out += bytes([NULL])  # the root class's superclass
    out += bytes([END])
    return bytes(out)


def chain_json(count, width=100):
    links = [[name.decode(), 0] for name in chain_names(count, width)]
    return {"$typedstream": [{"@": {"$class": links[0][0], "$classes": links, "$groups": []}}]}


def declared_count_json(count):
    return {"$typedstream": [{f"[{count}i]": [1]}]}


def dictionary_json(count):
    return {"$typedstream": [{"@": {f"k{index}": index for index in range(count)}}]}


def objects_json(count):
    thing = [["Thing", 0], ["NSObject", 0]]
    return {"$typedstream": [{"@": [{"$class": "Thing", "$classes": thing, "$groups": [{"i": index}]} for index in range(count)]}]}


def strings_json(count):
    return {"$typedstream": [{"+": f"{index:08d}" + "x" * 992} for index in range(count)]}


def cstrings_json(count):
    return {"$typedstream": [{"*": f"c{index}"} for index in range(count)]}


SHAPES = {
    "declared-count": declared_count_json,
    "chain-json": chain_json,
    "chain-stream": chain_stream,
    "dictionary-json": dictionary_json,
    "objects-json": objects_json,
    "strings-json": strings_json,
    "cstrings-json": cstrings_json,
}


def render(shape, count):
    made = SHAPES[shape](count)
    return made if isinstance(made, bytes) else json.dumps(made, separators=(",", ":")).encode()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=sorted(SHAPES), required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(args.out, "wb") as out:
        out.write(render(args.shape, args.count))


if __name__ == "__main__":
    main()
