#!/usr/bin/env python3
"""Checks that a thin 64-bit Mach-O file carries a code signature whose page hashes match
its contents. macOS on Apple Silicon kills an arm64 program whose signature is missing or
stale, and rewriting a file after linking (install_name_tool at install time) leaves the
linker's ad-hoc signature stale unless the tool signs again.

This checks the CodeDirectory's code-page hashes only (what an ad-hoc signature is); it
does not check certificates, entitlements or the special slots.

usage: macho_signature.py FILE...      exit status 1 if any file fails
"""
import hashlib
import struct
import sys

MH_MAGIC_64 = 0xFEEDFACF
LC_CODE_SIGNATURE = 0x1D
CSMAGIC_EMBEDDED_SIGNATURE = 0xFADE0CC0
CSMAGIC_CODEDIRECTORY = 0xFADE0C02
CSSLOT_CODEDIRECTORY = 0
HASHES = {1: hashlib.sha1, 2: hashlib.sha256}  # CS_HASHTYPE_SHA1, CS_HASHTYPE_SHA256


def check(path):
    data = open(path, "rb").read()
    magic, _, _, _, ncmds = struct.unpack_from("<IiiII", data, 0)
    if magic != MH_MAGIC_64:
        return f"not a thin 64-bit Mach-O file (magic {magic:#x})"
    offset, sig = 32, None
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, offset)
        if cmd == LC_CODE_SIGNATURE:
            sig = struct.unpack_from("<II", data, offset + 8)  # dataoff, datasize
        offset += size
    if sig is None:
        return "no LC_CODE_SIGNATURE: macOS on Apple Silicon refuses to run it"
    dataoff, datasize = sig
    blob_magic, _, count = struct.unpack_from(">III", data, dataoff)
    if blob_magic != CSMAGIC_EMBEDDED_SIGNATURE:
        return f"the signature is not an embedded signature (magic {blob_magic:#x})"
    cd = None
    for i in range(count):
        slot, off = struct.unpack_from(">II", data, dataoff + 12 + 8 * i)
        if slot == CSSLOT_CODEDIRECTORY:
            cd = dataoff + off
    if cd is None:
        return "the signature has no CodeDirectory"
    (cd_magic, _, _, _, hash_off, _, _, n_code, code_limit, hash_size, hash_type, _,
     page_log2) = struct.unpack_from(">IIIIIIIIIBBBB", data, cd)
    if cd_magic != CSMAGIC_CODEDIRECTORY or hash_type not in HASHES:
        return f"unreadable CodeDirectory (magic {cd_magic:#x}, hash type {hash_type})"
    if code_limit != dataoff:
        return f"the signature covers {code_limit} bytes, but the file has {dataoff} before it"
    page = 1 << page_log2
    for i in range(n_code):
        want = data[cd + hash_off + i * hash_size: cd + hash_off + (i + 1) * hash_size]
        have = HASHES[hash_type](data[i * page: min((i + 1) * page, code_limit)]).digest()
        if have[:hash_size] != want:
            return f"page {i} (bytes {i * page}..) does not match its hash: the file changed after signing"
    if n_code * page < code_limit:
        return f"{n_code} page hashes do not cover the {code_limit} signed bytes"
    return None


def main():
    failed = 0
    for path in sys.argv[1:]:
        problem = check(path)
        if problem:
            print(f"{path}: {problem}")
            failed += 1
        else:
            print(f"{path}: signature matches")
    return 1 if failed or len(sys.argv) < 2 else 0


if __name__ == "__main__":
    sys.exit(main())
