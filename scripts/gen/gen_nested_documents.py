#!/usr/bin/env python3
"""Writes the JSON of a large document of one of the newer kinds, for benchmarks; encode it with
`archive-tool encode FILE -o OUT` to get the bytes.

  --kind typedstream   an NSArchiver typedstream (generic form): a "Library" object holding notes,
                       each an object of its own class with an NSString title, integers, a real, a
                       C string and a tag object shared by many notes ($id / $ref).
  --kind objects       an NSArchiver typedstream of Foundation objects in their readable forms, as
                       dense in objects as a stream gets (about 11 bytes an object): one NSArray
                       whose elements are in turn an NSString, an NSNumber (integer), an NSArray
                       of an NSNumber (real) and an NSString, and an NSDictionary of two entries.
  --kind nested        a plain binary property list whose entries hold nested payloads, as
                       Terminal themes and iMessage edit histories do: an NSColor keyed archive,
                       an attributed-string typedstream and an XML property list per entry.

Usage: scripts/gen/gen_nested_documents.py --kind typedstream|objects|nested --size-mb N [--seed S] --out FILE.json
"""
import argparse
import base64
import json
import random

WORDS = "amber basalt cobalt delta ember fjord garnet harbour indigo juniper kelp lumen meadow nectar onyx".split()


def chain(name, version, *rest):
    return [[name, version], *rest, ["NSObject", 0]]


def ns_string(text):
    return {"$class": "NSString", "$classes": chain("NSString", 1), "$groups": [{"+": text}]}


def sentence(rng, words):
    return " ".join(rng.choice(WORDS) for _ in range(words))


def typedstream(rng, size):
    notes = []
    tags = 0
    written = 0
    while written < size:
        if tags == 0 or rng.random() < 0.02:
            tags += 1
            tag = {"$class": "Tag", "$classes": chain("Tag", 1), "$id": tags, "$groups": [{"+": f"tag {tags}"}]}
        else:
            tag = {"$ref": rng.randint(1, tags)}
        note = {"@": {"$class": "Note", "$classes": chain("Note", 2), "$groups": [
            {"@": ns_string(sentence(rng, rng.randint(2, 8)))},
            {"iq": [rng.randint(-1000, 100000), rng.randint(0, 1 << 40)]},
            {"d": round(rng.uniform(-1e6, 1e6), 6)},
            {"*": rng.choice(["plain", "rich", "draft"])},
            {"@": tag},
        ]}}
        notes.append(note)
        written += len(json.dumps(note)) // 4  # the stream is about a quarter of its JSON
    library = {"$class": "Library", "$classes": chain("Library", 1), "$groups": [{"i": len(notes)}, *notes]}
    return {"$typedstream": [{"@": library}]}


def colour(rng):
    rgb = " ".join(f"{rng.random():.10f}" for _ in range(3)).encode() + b"\0"
    return {"$keyedArchive": {"$class": "NSColor", "NSColorSpace": 1, "NSRGB": {"$bytes": base64.b64encode(rgb).decode()}}}


def attributed(rng):
    text = sentence(rng, rng.randint(3, 20))
    attributes = {"$class": "NSDictionary", "$classes": chain("NSDictionary", 0), "$groups": [
        {"i": 1},
        {"@": ns_string("__kIMMessagePartAttributeName")},
        {"@": {"$class": "NSNumber", "$classes": chain("NSNumber", 0, ["NSValue", 0]), "$groups": [{"*": "i"}, {"i": 0}]}},
    ]}
    string = {"$class": "NSAttributedString", "$classes": chain("NSAttributedString", 0), "$groups": [
        {"@": ns_string(text)}, {"iI": [1, len(text)]}, {"@": attributes},
    ]}
    return {"$typedstream": [{"@": string}]}


def nested(rng, size):
    entries = []
    written = 0
    while written < size:
        entry = {
            "id": len(entries),
            "colour": {"$data": colour(rng)},
            "body": {"$data": attributed(rng)},
            "prefs": {"$data": {"$propertyList": {"name": sentence(rng, 2), "size": rng.randint(9, 24), "bold": rng.random() < 0.5}, "$format": "xml"}},
        }
        entries.append(entry)
        written += 850  # about what one entry takes, encoded
    return {"$propertyList": {"entries": entries}}


def objects(rng, size):
    elements = []
    written = 0
    while written < size:
        index = len(elements)
        kind = index % 4
        if kind == 0:
            elements.append(sentence(rng, rng.randint(1, 4)))
        elif kind == 1:
            elements.append(rng.randint(-1_000_000, 1_000_000))
        elif kind == 2:
            elements.append([rng.random() * 1000, f"x{index}"])
        else:
            elements.append({f"k{index}": "v", "w": rng.randint(0, 99)})
        written += 27  # about what one element takes, encoded
    return {"$typedstream": [{"@": elements}]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", choices=["typedstream", "objects", "nested"], required=True)
    parser.add_argument("--size-mb", type=float, required=True, help="about this many MB once encoded")
    parser.add_argument("--seed", type=int, default=2020)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    size = int(args.size_mb * 1_000_000)
    document = {"typedstream": typedstream, "objects": objects, "nested": nested}[args.kind](rng, size)
    with open(args.out, "w") as out:
        json.dump(document, out, separators=(",", ":"))


if __name__ == "__main__":
    main()
