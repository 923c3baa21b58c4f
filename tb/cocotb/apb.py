"""A small APB4 requester for the cocotb tests (the tops' CSR ports).

The tops name their APB ports the lowRISC way (psel_i, prdata_o, ...);
`ApbRequester` drives exactly those names. One transfer at a time (a lock
serialises coroutines), an idle cycle between transfers, PSTRB 0 on reads
(the completer's apb_checker asserts it). A transfer waits for PREADY at
most `max_wait` cycles, so a hung completer fails the test instead of
hanging it.
"""

from __future__ import annotations

from dataclasses import dataclass

from cocotb.handle import SimHandleBase
from cocotb.triggers import Lock, ReadOnly, RisingEdge


class ApbError(Exception):
    """PSLVERR on a transfer that was expected to succeed."""


@dataclass(frozen=True)
class ApbResult:
    data: int  # PRDATA (reads; 0 for writes)
    slverr: bool


class ApbRequester:
    def __init__(self, dut: SimHandleBase, clk: SimHandleBase, max_wait: int = 16) -> None:
        self.dut = dut
        self.clk = clk
        self.max_wait = max_wait
        self._lock = Lock()
        self.idle()

    def idle(self) -> None:
        d = self.dut
        d.psel_i.value = 0
        d.penable_i.value = 0
        d.pwrite_i.value = 0
        d.pprot_i.value = 0
        d.paddr_i.value = 0
        d.pwdata_i.value = 0
        d.pstrb_i.value = 0

    async def transfer(self, addr: int, write: bool, data: int = 0, strb: int = 0xF) -> ApbResult:
        d = self.dut
        async with self._lock:
            await RisingEdge(self.clk)
            d.psel_i.value = 1
            d.penable_i.value = 0
            d.pwrite_i.value = int(write)
            d.paddr_i.value = addr
            d.pwdata_i.value = data if write else 0
            d.pstrb_i.value = strb if write else 0
            await RisingEdge(self.clk)
            d.penable_i.value = 1
            for _ in range(self.max_wait):
                await ReadOnly()
                if d.pready_o.value.integer:
                    result = ApbResult(0 if write else d.prdata_o.value.integer,
                                       bool(d.pslverr_o.value.integer))
                    break
                await RisingEdge(self.clk)
            else:
                raise TimeoutError(f"APB {'write' if write else 'read'} {addr:#05x}: "
                                   f"no PREADY within {self.max_wait} cycles")
            await RisingEdge(self.clk)
            self.idle()
            return result

    async def write(self, addr: int, data: int) -> None:
        r = await self.transfer(addr, True, data)
        if r.slverr:
            raise ApbError(f"APB write {addr:#05x} <- {data:#010x}: PSLVERR")

    async def read(self, addr: int) -> int:
        r = await self.transfer(addr, False)
        if r.slverr:
            raise ApbError(f"APB read {addr:#05x}: PSLVERR")
        return r.data


class Csr:
    """Register access by name through an `ApbRequester` and a `RegMap`."""

    def __init__(self, apb: ApbRequester, regs) -> None:
        self.apb = apb
        self.regs = regs

    async def write(self, reg: str, word: int | None = None, **fields: int) -> None:
        await self.apb.write(self.regs.addr(reg), word if word is not None else
                             self.regs.value(reg, **fields))

    async def read(self, reg: str) -> int:
        return await self.apb.read(self.regs.addr(reg))

    async def field(self, reg: str, field: str) -> int:
        return self.regs.get(reg, field, await self.read(reg))
