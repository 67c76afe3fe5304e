#!/usr/bin/env python3
"""Seeds for pcap_records_fuzz from capture files: each file's records
without its file header, behind the selector byte of pcap_records_fuzz.cpp's
kHeaders entry with the same kind of header and link type (files of other
link types or byte orders are left out). Usage: record_seeds.py OUTDIR FILE...
"""
import os
import struct
import sys

# (kind, linktype) -> selector, as kHeaders in pcap_records_fuzz.cpp
SELECTORS = {("le", 1): 0, ("le_nsec", 1): 1, ("be", 1): 2, ("le", 101): 3, ("le", 229): 4,
             ("le", 0): 5, ("le", 113): 6, ("le", 276): 7, ("ng", 1): 8, ("ng", 276): 9}
MAX_RECORDS_BYTES = 16384


def pcap_records(data):
    magic = data[:4]
    kind = {b"\xd4\xc3\xb2\xa1": "le", b"\x4d\x3c\xb2\xa1": "le_nsec", b"\xa1\xb2\xc3\xd4": "be"}.get(magic)
    if kind is None or len(data) < 24:
        return None
    linktype = struct.unpack(">I" if kind == "be" else "<I", data[20:24])[0] & 0xffff
    return kind, linktype, data[24:]


def pcapng_records(data):
    # A little-endian section header, then blocks up to and including the first
    # interface description; the rest are the records.
    if data[:4] != b"\x0a\x0d\x0d\x0a" or len(data) < 28 or data[8:12] != b"\x4d\x3c\x2b\x1a":
        return None
    off = 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack("<II", data[off:off + 8])
        if blen < 12 or off + blen > len(data):
            return None
        if btype == 1:
            linktype = struct.unpack("<H", data[off + 8:off + 10])[0]
            return "ng", linktype, data[off + blen:]
        off += blen
    return None


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    made = 0
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            data = f.read()
        got = pcap_records(data) or pcapng_records(data)
        if not got:
            continue
        kind, linktype, records = got
        sel = SELECTORS.get((kind, linktype))
        if sel is None or not records:
            continue
        name = os.path.join(out, os.path.basename(path) + ".records")
        with open(name, "wb") as f:
            f.write(bytes([sel]) + records[:MAX_RECORDS_BYTES])
        made += 1
    print(f"record_seeds: {made} seeds in {out}")


if __name__ == "__main__":
    main()
