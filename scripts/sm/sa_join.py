#!/usr/bin/env python3
"""Join this port to multicast groups through the subnet administrator.

Sends one SubnAdmSet(MCMemberRecord) per MGID (full member, P_Key 0xFFFF,
Q_Key 0x0B1B, SL 0) from the local port to the SM at --sm-lid and prints
"MGID MLID" per group as the SA answered. Uses libibumad directly (ctypes),
so it runs on real hardware or, with libumad2sim preloaded, on ibsim.

Usage: sa_join.py --sm-lid LID --port-guid 0x... MGID [MGID ...]
(MGID as 32 hex digits, colons allowed). Exit 1 with the SA's status when a
join is refused.
"""

import argparse
import ctypes
import os
import struct
import sys

SUBN_ADM = 0x03
SA_CLASS_VERSION = 2
METHOD_SET = 0x02
METHOD_GET_RESP = 0x81
ATTR_MCMEMBER_RECORD = 0x0038
MAD_SIZE = 256
SA_DATA_OFFSET = 56  # common MAD header 24, RMPP 12, SA header 20
GSI_QP = 1
GSI_QKEY = 0x80010000
LINK_LOCAL_PREFIX = 0xFE80000000000000
# Components OpenSM requires to create a group (MGID, PortGID, Q_Key,
# TClass, P_Key, SL, FlowLabel, JoinState).
COMP_MASK = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 6) | (1 << 7) | (1 << 12) | (1 << 13) | (1 << 16)


def parse_mgid(text: str) -> bytes:
    digits = text.replace(":", "")
    if len(digits) != 32 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise ValueError(f"MGID {text!r} is not 32 hex digits")
    mgid = bytes.fromhex(digits)
    if mgid[0] != 0xFF:
        raise ValueError(f"MGID {text!r} does not start with ff (not a multicast GID)")
    return mgid


def mcmember_set(tid: int, mgid: bytes, port_guid: int) -> bytes:
    hdr = struct.pack(">BBBBHHQHHI", 1, SUBN_ADM, SA_CLASS_VERSION, METHOD_SET, 0, 0, tid,
                      ATTR_MCMEMBER_RECORD, 0, 0)
    rmpp = bytes(12)
    sa = struct.pack(">QHHQ", 0, 0, 0, COMP_MASK)
    rec = mgid + struct.pack(">QQ", LINK_LOCAL_PREFIX, port_guid)
    rec += struct.pack(">IHBBHBBIB3x", 0x0B1B, 0, 0, 0, 0xFFFF, 0, 0, 0, (2 << 4) | 1)
    mad = hdr + rmpp + sa + rec
    return mad + bytes(MAD_SIZE - len(mad))


class Umad:
    def __init__(self):
        self.lib = ctypes.CDLL("libibumad.so.3", use_errno=True)
        for name in ("umad_open_port", "umad_register", "umad_send", "umad_recv", "umad_set_addr",
                     "umad_size", "umad_status"):
            getattr(self.lib, name).restype = ctypes.c_int
        self.lib.umad_get_mad.restype = ctypes.c_void_p
        self.lib.umad_get_mad.argtypes = [ctypes.c_void_p]
        self.lib.umad_set_addr.argtypes = [ctypes.c_void_p] + [ctypes.c_int] * 4
        self.lib.umad_send.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p] + \
            [ctypes.c_int] * 3
        self.lib.umad_recv.argtypes = [ctypes.c_int, ctypes.c_void_p,
                                       ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        self.lib.umad_status.argtypes = [ctypes.c_void_p]
        if self.lib.umad_init() < 0:
            raise OSError("umad_init failed")
        self.fd = self.lib.umad_open_port(None, 0)
        if self.fd < 0:
            raise OSError(f"umad_open_port failed ({self.fd})")
        self.agent = self.lib.umad_register(self.fd, SUBN_ADM, SA_CLASS_VERSION, 0, None)
        if self.agent < 0:
            raise OSError(f"umad_register for the SA class failed ({self.agent})")
        self.size = self.lib.umad_size() + MAD_SIZE
        self.buf = ctypes.create_string_buffer(self.size)

    def call(self, sm_lid: int, mad: bytes, timeout_ms: int = 2000) -> bytes:
        ctypes.memset(self.buf, 0, self.size)
        mad_ptr = self.lib.umad_get_mad(self.buf)
        ctypes.memmove(mad_ptr, mad, len(mad))
        self.lib.umad_set_addr(self.buf, sm_lid, GSI_QP, 0, GSI_QKEY)
        if self.lib.umad_send(self.fd, self.agent, self.buf, MAD_SIZE, timeout_ms, 3) < 0:
            raise OSError(f"umad_send to LID {sm_lid} failed")
        # The umad layer owns the TID's upper 32 bits (its agent id).
        tid = mad[12:16]
        while True:
            length = ctypes.c_int(MAD_SIZE)
            if self.lib.umad_recv(self.fd, self.buf, ctypes.byref(length), timeout_ms * 4) < 0:
                raise OSError(f"no answer from the SA at LID {sm_lid}")
            if self.lib.umad_status(self.buf) != 0:
                raise OSError(f"the request to LID {sm_lid} timed out (umad status "
                              f"{self.lib.umad_status(self.buf)})")
            got = ctypes.string_at(self.lib.umad_get_mad(self.buf), MAD_SIZE)
            if got[12:16] == tid:
                return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sm-lid", required=True, type=lambda s: int(s, 0))
    ap.add_argument("--port-guid", required=True, type=lambda s: int(s, 0))
    ap.add_argument("mgids", nargs="+")
    a = ap.parse_args()
    mgids = [parse_mgid(m) for m in a.mgids]
    umad = Umad()
    for i, mgid in enumerate(mgids):
        tid = ((os.getpid() & 0xFFFF) << 16) | i
        rsp = umad.call(a.sm_lid, mcmember_set(tid, mgid, a.port_guid))
        method, status = rsp[3], struct.unpack(">H", rsp[4:6])[0]
        if method != METHOD_GET_RESP or status != 0:
            print(f"sa_join: join of port 0x{a.port_guid:016x} to {mgid.hex()} refused: method "
                  f"0x{method:02x}, MAD status 0x{status:04x}", file=sys.stderr)
            return 1
        mlid = struct.unpack(">H", rsp[SA_DATA_OFFSET + 36:SA_DATA_OFFSET + 38])[0]
        print(f"{mgid.hex()} 0x{mlid:04x}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError) as e:
        print(f"sa_join: {e}", file=sys.stderr)
        sys.exit(2)
