#!/usr/bin/env python3
"""Dumps what pytypedstream's low-level reader sees in typedstream files, one event a line, so
that the codec's own typedstream reader can be checked against a reader it did not write
(Tests/ArchiveCodecTests/TypedStreamBytes/TypedStreamOracleTests.swift renders its model in the
same text and compares).

Usage: typedstream_oracle.py FILE...            one dump to stdout per file, each after "== NAME"
       typedstream_oracle.py --write DIR FILE... DIR/NAME.events per file (the committed dumps)

Needs pytypedstream (`pip install pytypedstream`, in a virtual environment if the system's Python
is managed). Files the reader refuses get a single line "refused: MESSAGE"; their dump is not
written with --write.

The text, one line per event (bytes in double quotes, printable ASCII as is except `"` and `\\`,
every other byte as \\xHH; reals as the 16 hex digits of the IEEE double's bits, a float widened
to a double first):

    header streamer=4 order=little|big system=1000
    group "ENC" "ENC" ...        a type string, split into its types   (end group)
    int N | bool 0|1 | real HEX | nil
    bytes "..."                  a `+` string       cstring "..."     a new `*` string
    atom "..."|nil               a `%` atom         selector "..."|nil   a `:` selector
    ref object|class|cstring N   a back-reference; N counts objects, classes and C strings
                                 together, from 0, in the order the stream introduces them
    object                       a new object (then its class chain)   (end object)
    class "NAME" vN              a new class in a chain; the chain ends with nil or a ref
    bytearray "ENC" HEX          a [Nc]/[NC] array's bytes, lowercase hex
    array "ENC" N                (end array)
    struct "NAME"|nil "ENC" ...  the struct's name and field types   (end struct)
"""
import argparse
import os
import struct
import sys

try:
    from typedstream import stream as ts
except ImportError:
    sys.exit("typedstream_oracle.py needs pytypedstream: pip install pytypedstream")


def quoted(data):
    out = []
    for byte in data:
        if 0x20 <= byte <= 0x7E and byte not in (0x22, 0x5C):
            out.append(chr(byte))
        else:
            out.append("\\x%02x" % byte)
    return '"' + "".join(out) + '"'


def optional(data):
    return "nil" if data is None else quoted(data)


def line(event):
    """The text of one event of pytypedstream's TypedStreamReader."""
    if event is None:
        return "nil"
    if isinstance(event, bool):
        return "bool %d" % int(event)
    if isinstance(event, int):
        return "int %d" % event
    if isinstance(event, float):
        return "real " + struct.pack(">d", event).hex()
    if isinstance(event, bytes):
        return "bytes " + quoted(event)
    if isinstance(event, ts.BeginTypedValues):
        return "group " + " ".join(quoted(e) for e in event.encodings)
    if isinstance(event, ts.EndTypedValues):
        return "end group"
    if isinstance(event, ts.ObjectReference):
        kind = {ts.ObjectReference.Type.OBJECT: "object", ts.ObjectReference.Type.CLASS: "class",
                ts.ObjectReference.Type.C_STRING: "cstring"}[event.referenced_type]
        return "ref %s %d" % (kind, event.number)
    if isinstance(event, ts.CString):
        return "cstring " + quoted(event.contents)
    if isinstance(event, ts.Atom):
        return "atom " + optional(event.contents)
    if isinstance(event, ts.Selector):
        return "selector " + optional(event.name)
    if isinstance(event, ts.SingleClass):
        return "class %s v%d" % (quoted(event.name), event.version)
    if isinstance(event, ts.BeginObject):
        return "object"
    if isinstance(event, ts.EndObject):
        return "end object"
    if isinstance(event, ts.ByteArray):
        return "bytearray %s %s" % (quoted(event.element_encoding), event.data.hex())
    if isinstance(event, ts.BeginArray):
        return "array %s %d" % (quoted(event.element_encoding), event.length)
    if isinstance(event, ts.EndArray):
        return "end array"
    if isinstance(event, ts.BeginStruct):
        return "struct %s %s" % (optional(event.name), " ".join(quoted(e) for e in event.field_encodings))
    if isinstance(event, ts.EndStruct):
        return "end struct"
    raise TypeError("unknown event %r" % (event,))


def dump(path):
    """The dump's lines, or raises InvalidTypedStreamError."""
    with open(path, "rb") as handle:
        data = handle.read()
    reader = ts.TypedStreamReader.from_data(data)
    lines = ["header streamer=%d order=%s system=%d" % (reader.streamer_version, reader.byte_order, reader.system_version)]
    lines.extend(line(event) for event in reader)
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", metavar="DIR", help="write DIR/NAME.events for each file it reads")
    parser.add_argument("files", nargs="+", metavar="FILE")
    args = parser.parse_args()
    for path in args.files:
        name = os.path.basename(path)
        try:
            lines = dump(path)
        except ts.InvalidTypedStreamError as error:
            print("== %s\nrefused: %s" % (name, error))
            continue
        text = "\n".join(lines) + "\n"
        if args.write:
            with open(os.path.join(args.write, name + ".events"), "w", encoding="ascii") as out:
                out.write(text)
            print("%s: %d events" % (name, len(lines) - 1))
        else:
            sys.stdout.write("== %s\n%s" % (name, text))


if __name__ == "__main__":
    main()
