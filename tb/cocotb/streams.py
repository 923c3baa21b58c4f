"""The flit streams of the tops' links (nic_top: one port, switch_top:
NumPorts ports packed into one vector per signal), driven and watched by one
coroutine per top so that no two coroutines write the same signal.

`Links.send(port, flits)` queues a packet on the top's receive side;
`Links.received[port]` lists the packets the top sent on its transmit side,
each a `Packet` with the cycle of its last flit. The transmit side is always
ready unless `stall` > 0: then each cycle each port is not ready with that
probability (drawn from the test's seeded generator).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cocotb
from cocotb.handle import SimHandleBase
from cocotb.triggers import ReadOnly, RisingEdge


@dataclass
class Packet:
    flits: list[int]
    first_cycle: int = 0
    last_cycle: int = 0


@dataclass
class _Rx:
    queue: deque[tuple[int, bool]] = field(default_factory=deque)
    taken_cycles: list[int] = field(default_factory=list)  # cycle of each packet's last flit


class Links:
    def __init__(self, dut: SimHandleBase, clk: SimHandleBase, ports: int, flit_bits: int,
                 rng: random.Random, stall: float = 0.0,
                 on_packet: Callable[[int, Packet], None] | None = None) -> None:
        self.dut = dut
        self.clk = clk
        self.ports = ports
        self.flit_bits = flit_bits
        self.rng = rng
        self.stall = stall
        self.on_packet = on_packet
        self.cycle = 0
        self._rx = [_Rx() for _ in range(ports)]
        self._partial: list[Packet | None] = [None] * ports
        self.received: list[list[Packet]] = [[] for _ in range(ports)]
        self._drive_idle()

    def start(self) -> None:
        cocotb.start_soon(self._run())

    def send(self, port: int, flits: Sequence[int]) -> None:
        if not flits:
            raise ValueError("a packet has at least one flit")
        for i, f in enumerate(flits):
            if f < 0 or f >> self.flit_bits:
                raise ValueError(f"flit {i} = {f:#x} is wider than {self.flit_bits} bits")
            self._rx[port].queue.append((f, i == len(flits) - 1))

    def pending(self, port: int | None = None) -> int:
        ports = range(self.ports) if port is None else [port]
        return sum(len(self._rx[p].queue) for p in ports)

    def taken_cycles(self, port: int) -> list[int]:
        """Cycle at which each packet sent on `port` had its last flit taken."""
        return self._rx[port].taken_cycles

    def _drive_idle(self) -> None:
        d = self.dut
        d.rx_valid_i.value = 0
        d.rx_data_i.value = 0
        d.rx_last_i.value = 0
        d.tx_ready_i.value = (1 << self.ports) - 1

    async def _run(self) -> None:
        d, w = self.dut, self.flit_bits
        mask = (1 << w) - 1
        while True:
            valid = data = last = 0
            for p, rx in enumerate(self._rx):
                if rx.queue:
                    flit, is_last = rx.queue[0]
                    valid |= 1 << p
                    data |= flit << (p * w)
                    last |= int(is_last) << p
            ready = 0
            for p in range(self.ports):
                if self.stall == 0.0 or self.rng.random() >= self.stall:
                    ready |= 1 << p
            d.rx_valid_i.value = valid
            d.rx_data_i.value = data
            d.rx_last_i.value = last
            d.tx_ready_i.value = ready
            await ReadOnly()
            rx_fire = valid & d.rx_ready_o.value.integer
            tx_fire = ready & d.tx_valid_o.value.integer
            tx_data = d.tx_data_o.value.integer if tx_fire else 0
            tx_last = d.tx_last_o.value.integer if tx_fire else 0
            for p in range(self.ports):
                if rx_fire >> p & 1:
                    _, is_last = self._rx[p].queue.popleft()
                    if is_last:
                        self._rx[p].taken_cycles.append(self.cycle)
                if tx_fire >> p & 1:
                    pkt = self._partial[p] or Packet([], first_cycle=self.cycle)
                    pkt.flits.append((tx_data >> (p * w)) & mask)
                    self._partial[p] = pkt
                    if tx_last >> p & 1:
                        pkt.last_cycle = self.cycle
                        self._partial[p] = None
                        self.received[p].append(pkt)
                        if self.on_packet is not None:
                            self.on_packet(p, pkt)
            await RisingEdge(self.clk)
            self.cycle += 1
