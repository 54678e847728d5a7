#!/usr/bin/env python3
"""LTTng's packet index (STREAM_FOLDER/index/NAME.idx) for the damaged-trace tests, read
and edited here independently of the tracer: a 16-byte header (magic 0xC1F1DCC1, major,
minor, entry length; big-endian 32-bit) and one entry per packet written (big-endian
64-bit: offset in bytes, packet and content size in bits, timestamps, discarded events,
stream id; since 1.1 stream instance id and sequence number).

  ctf_index.py entries IDX          a line per packet: offset bytes content_bytes seq
  ctf_index.py drop IDX STREAM K    removes packet K (0-based) from STREAM and from IDX,
                                    later offsets moved down: as if it was never written
"""
import struct
import sys

MAGIC = 0xC1F1DCC1


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, _major, _minor, length = struct.unpack(">IIII", data[:16])
    if magic != MAGIC:
        sys.exit(f"{path}: not an LTTng packet index")
    count = (len(data) - 16) // length
    entries = [bytearray(data[16 + i * length:16 + (i + 1) * length]) for i in range(count)]
    return data[:16], entries


def field(entry, i):
    return struct.unpack(">Q", entry[8 * i:8 * i + 8])[0]


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "entries":
        _, entries = read(sys.argv[2])
        for e in entries:
            seq = field(e, 8) if len(e) >= 72 else -1
            print(field(e, 0), field(e, 1) // 8, field(e, 2) // 8, seq)
    elif len(sys.argv) == 5 and sys.argv[1] == "drop":
        index, stream, k = sys.argv[2], sys.argv[3], int(sys.argv[4])
        header, entries = read(index)
        offset, size = field(entries[k], 0), field(entries[k], 1) // 8
        with open(stream, "rb") as f:
            data = f.read()
        with open(stream, "wb") as f:
            f.write(data[:offset] + data[offset + size:])
        del entries[k]
        for e in entries[k:]:
            e[0:8] = struct.pack(">Q", field(e, 0) - size)
        with open(index, "wb") as f:
            f.write(header + b"".join(entries))
    else:
        sys.exit(__doc__)


main()
