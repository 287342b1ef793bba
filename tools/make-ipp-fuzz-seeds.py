#!/usr/bin/env python3
"""Writes the fuzz seed corpus Fixtures/ipp/fuzz-seeds/ from the captured fixtures.

Seeds: every captured message; the same with document data after the end tag;
a message with the syntaxes the peers did not send (extension 0x7F, nameWithLanguage,
every out-of-band tag, nested collections); and a few malformed variants (truncated,
overlong length, missing end tag) so the fuzzer starts next to the error paths.
Stdlib only; deterministic.
"""
import glob
import os
import struct
import sys

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
fixtures = os.path.join(repo, "Fixtures", "ipp")
seeds = os.path.join(fixtures, "fuzz-seeds")
os.makedirs(seeds, exist_ok=True)
for old in glob.glob(os.path.join(seeds, "*")):
    os.remove(old)


def value(tag, name, data):
    name = name.encode()
    return bytes([tag]) + struct.pack(">H", len(name)) + name + struct.pack(">H", len(data)) + data


def write(name, data):
    with open(os.path.join(seeds, name), "wb") as handle:
        handle.write(data)


for path in sorted(glob.glob(os.path.join(fixtures, "*.ipp"))):
    data = open(path, "rb").read()
    base = os.path.basename(path)[:-4]
    write(base, data)
    if len(data) < 1000:
        write(base + "-with-document", data + b"%PDF-1.4\n%%EOF\n")
        write(base + "-truncated", data[: len(data) // 2])
        write(base + "-no-end-tag", data[:-1])

lang = lambda text, language: struct.pack(">H", len(language)) + language + struct.pack(">H", len(text)) + text
synthetic = (
    b"\x02\x00\x00\x0b\x00\x00\x00\x01\x01"
    + value(0x47, "attributes-charset", b"utf-8")
    + value(0x48, "attributes-natural-language", b"en")
    + b"\x02"
    + value(0x7F, "x-extension", struct.pack(">I", 0x12345678) + b"\x01\x02")
    + value(0x36, "x-name-lang", lang(b"Nom", b"fr"))
    + value(0x35, "x-text-lang", lang(b"Hallo", b"de"))
    + b"".join(value(tag, "x-oob-%02x" % tag, b"") for tag in (0x10, 0x12, 0x13, 0x15, 0x16, 0x17))
    + value(0x34, "x-col", b"")
    + value(0x4A, "", b"inner") + value(0x34, "", b"")
    + value(0x4A, "", b"deep") + value(0x21, "", b"\x00\x00\x00\x07") + value(0x21, "", b"\x00\x00\x00\x08")
    + value(0x37, "", b"")
    + value(0x37, "", b"")
    + b"\x03"
)
write("synthetic-every-syntax", synthetic)
write("synthetic-overlong-value", synthetic[:20] + b"\xff\xff" + synthetic[22:])
print("wrote %d seeds to %s" % (len(os.listdir(seeds)), seeds))
