"""Host memory on nic_top's memory port (docs/nic/README.md "Memory port"):
one 64-bit little-endian word per request at a byte address, one response per
request in request order, the cycle after the request at the earliest. Always
ready; words never written read as 0. `writes` logs every write in order."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cocotb
from cocotb.handle import SimHandleBase
from cocotb.triggers import ReadOnly, RisingEdge


@dataclass(frozen=True)
class MemWrite:
    addr: int
    data: int
    cycle: int


class HostMemory:
    def __init__(self, dut: SimHandleBase, clk: SimHandleBase) -> None:
        self.dut = dut
        self.clk = clk
        self.words: dict[int, int] = {}
        self.writes: list[MemWrite] = []
        self.reads: list[int] = []
        self.cycle = 0
        dut.mem_req_ready_i.value = 1
        dut.mem_rsp_valid_i.value = 0
        dut.mem_rsp_data_i.value = 0
        dut.mem_rsp_err_i.value = 0

    def start(self) -> None:
        cocotb.start_soon(self._run())

    def load(self, addr: int, data: bytes) -> None:
        """Places `data` (a multiple of 8 bytes) at the 8-byte aligned `addr`."""
        if addr % 8 or len(data) % 8:
            raise ValueError(f"load at {addr:#x} of {len(data)} bytes: not 8-byte aligned")
        for i in range(0, len(data), 8):
            self.words[addr + i] = int.from_bytes(data[i:i + 8], "little")

    def read_bytes(self, addr: int, size: int) -> bytes:
        return b"".join(self.words.get(addr + i, 0).to_bytes(8, "little")
                        for i in range(0, size, 8))[:size]

    async def _run(self) -> None:
        d = self.dut
        owed: deque[int] = deque()  # read data (0 for writes), in request order
        while True:
            d.mem_rsp_valid_i.value = int(bool(owed))
            d.mem_rsp_data_i.value = owed[0] if owed else 0
            await ReadOnly()
            rsp_fire = bool(owed) and d.mem_rsp_ready_o.value.integer
            req = d.mem_req_valid_o.value.integer
            if req:
                addr = d.mem_req_addr_o.value.integer
                if d.mem_req_write_o.value.integer:
                    data = d.mem_req_data_o.value.integer
                    self.words[addr] = data
                    self.writes.append(MemWrite(addr, data, self.cycle))
                    new = 0
                else:
                    self.reads.append(addr)
                    new = self.words.get(addr, 0)
            await RisingEdge(self.clk)
            self.cycle += 1
            if rsp_fire:
                owed.popleft()
            if req:
                owed.append(new)
