#!/usr/bin/env python3
"""Writes Fixtures/ipp/original-000-print-job-request.ipp: the Print-Job message of original 000's Swift serialiser,
byte for byte, in the original app's order (the document bytes the original app appends after it are not part of the
file, as with the other Print-Job fixtures). The original app's filename is "Quarterly report.pdf".

Like the original app, lengths are one byte after a 0x00 — the original writes `UInt8(name.count)`, a character count,
which is also the byte count only for ASCII names."""
import pathlib
import sys

def attribute(tag: int, name: str, value: bytes) -> bytes:
    encoded = name.encode("utf-8")
    return bytes([tag, 0x00, len(encoded)]) + encoded + bytes([0x00, len(value)]) + value

def original_print_job(filename: str) -> bytes:
    data = bytearray()
    data += bytes([0x01, 0x01])               # IPP version 1.1
    data += bytes([0x00, 0x02])               # operation Print-Job
    data += bytes([0x00, 0x00, 0x00, 0x01])   # request-id 1
    data += bytes([0x01])                     # operation-attributes-tag
    data += attribute(0x47, "attributes-charset", b"us-ascii")
    data += attribute(0x48, "attributes-natural-language", b"en-us")
    data += attribute(0x42, "job-name", filename.encode("utf-8"))
    data += attribute(0x22, "ipp-attribute-fidelity", bytes([0x01]))
    data += bytes([0x02])                     # job-attributes-tag
    data += attribute(0x21, "copies", bytes([0x00, 0x00, 0x00, 0x01]))
    data += attribute(0x44, "sides", b"one-sided")
    data += bytes([0x03])                     # end-of-attributes-tag
    return bytes(data)

if __name__ == "__main__":
    root = pathlib.Path(__file__).resolve().parent.parent
    target = root / "Fixtures" / "ipp" / "original-000-print-job-request.ipp"
    target.write_bytes(original_print_job("Quarterly report.pdf"))
    print(f"wrote {target.relative_to(root)}", file=sys.stderr)
