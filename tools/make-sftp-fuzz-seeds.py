#!/usr/bin/env python3
"""Writes SFTP packets of every kind a server or client meets, as libFuzzer seeds, into the folder given."""
import os
import struct
import sys

def string(b):
    return struct.pack(">I", len(b)) + b

def packet(kind, body):
    return struct.pack(">IB", len(body) + 1, kind) + body

attrs_full = struct.pack(">IQIIIII", 0x0F, 46617390, 1000, 1000, 0o100644, 7, 9)
seeds = [
    packet(1, struct.pack(">I", 3)),
    packet(2, struct.pack(">I", 3) + string(b"posix-rename@openssh.com") + string(b"1")),
    packet(3, struct.pack(">I", 1) + string(b"socPrint/source.pptx") + struct.pack(">I", 0x1A) + struct.pack(">I", 0)),
    packet(4, struct.pack(">I", 2) + string(b"\0\0\0\1")),
    packet(5, struct.pack(">I", 3) + string(b"\0\0\0\1") + struct.pack(">QI", 0, 32768)),
    packet(6, struct.pack(">I", 4) + string(b"\0\0\0\1") + struct.pack(">Q", 0) + string(b"%PDF-1.4 hello")),
    packet(9, struct.pack(">I", 7) + string(b"a") + attrs_full),
    packet(16, struct.pack(">I", 8) + string(b".")),
    packet(101, struct.pack(">II", 9, 4) + string(b"Disk quota exceeded") + string(b"")),
    packet(104, struct.pack(">II", 10, 1) + string(b"f") + string(b"-rw-r--r-- f") + attrs_full),
    packet(105, struct.pack(">I", 11) + attrs_full),
    packet(200, struct.pack(">I", 12) + string(b"statvfs@openssh.com") + string(b"/")),
]
folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
for index, seed in enumerate(seeds):
    with open(os.path.join(folder, "seed-%02d" % index), "wb") as f:
        f.write(seed)
