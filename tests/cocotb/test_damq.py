"""cocotb tests of the DAMQ (rtl/common/damq.sv) against a Python reference.

Every cycle, before the clock edge, the DUT's outputs are compared with a
reference made of one deque per queue: data order, per-queue counts and empty
flags, the free count, full/almost_full and both handshakes. The random test
drives biased traffic phases (filling, draining, balanced, one hot queue) so
that the full and empty corners and simultaneous enqueue+dequeue (also on the
same queue) are hit; the directed tests pin those corners down one by one.

The cocotb tests are named damq_* so that pytest does not collect them; pytest
runs test_damq() at the bottom, which builds the model and runs them all.
"""

from __future__ import annotations

import json
import os
import random
from collections import deque
from dataclasses import dataclass, field

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

# Parameters the model was built with (passed by test_damq() below).
DEFAULT_PARAMS = {"NumQueues": 4, "NumSlots": 16, "Width": 32, "AlmostFullSlots": 2}
PARAMS_ENV = "SYNCFAB_DAMQ_PARAMS"


def damq_params() -> dict[str, int]:
    return {**DEFAULT_PARAMS, **json.loads(os.environ.get(PARAMS_ENV, "{}"))}


class DamqModel:
    """Reference: one deque per queue plus the number of free slots."""

    def __init__(self, num_queues: int, num_slots: int, almost_full_slots: int) -> None:
        self.queues: list[deque[int]] = [deque() for _ in range(num_queues)]
        self.num_slots = num_slots
        self.almost_full_slots = almost_full_slots

    @property
    def free(self) -> int:
        return self.num_slots - sum(len(q) for q in self.queues)

    @property
    def full(self) -> bool:
        return self.free == 0

    @property
    def almost_full(self) -> bool:
        return self.free <= self.almost_full_slots


@dataclass
class Coverage:
    """Corner cases the random test must reach; a run that misses one fails."""

    enq: int = 0
    deq: int = 0
    cycles_full: int = 0
    enq_refused_full: int = 0
    deq_while_full: int = 0
    both_same_queue: int = 0
    both_same_queue_len1: int = 0
    both_other_queue: int = 0
    deq_refused_empty: int = 0
    enq_to_empty_and_deq_it: int = 0
    max_one_queue: int = 0
    per_queue_enq: list[int] = field(default_factory=list)


class DamqTb:
    def __init__(self, dut) -> None:
        self.dut = dut
        p = damq_params()
        self.nq = p["NumQueues"]
        self.ns = p["NumSlots"]
        self.width = p["Width"]
        self.cnt_w = self.ns.bit_length()  # $clog2(NumSlots + 1)
        self.model = DamqModel(self.nq, self.ns, p["AlmostFullSlots"])
        self.cov = Coverage(per_queue_enq=[0] * self.nq)
        self.cycle_no = 0

    async def start(self) -> None:
        cocotb.start_soon(Clock(self.dut.clk_i, 10, units="ns").start())
        self._drive(None, None)
        self.dut.rst_ni.value = 0
        for _ in range(3):
            await RisingEdge(self.dut.clk_i)
        self.dut.rst_ni.value = 1
        await RisingEdge(self.dut.clk_i)

    def _drive(self, enq: tuple[int, int] | None, deq: int | None) -> None:
        d = self.dut
        d.enq_valid_i.value = int(enq is not None)
        d.enq_queue_i.value = enq[0] if enq else 0
        d.enq_data_i.value = enq[1] if enq else 0
        d.deq_valid_i.value = int(deq is not None)
        d.deq_queue_i.value = deq if deq is not None else 0

    def _fail(self, what: str, got, want) -> None:
        raise AssertionError(f"cycle {self.cycle_no}: {what}: DUT {got}, reference {want} "
                             f"(queues {[list(q) for q in self.model.queues]})")

    def _check(self, deq_q: int) -> None:
        d, m = self.dut, self.model
        counts = d.queue_count_o.value.integer
        empties = d.queue_empty_o.value.integer
        mask = (1 << self.cnt_w) - 1
        for q in range(self.nq):
            got = (counts >> (q * self.cnt_w)) & mask
            if got != len(m.queues[q]):
                self._fail(f"queue_count_o[{q}]", got, len(m.queues[q]))
            if (empties >> q) & 1 != int(not m.queues[q]):
                self._fail(f"queue_empty_o[{q}]", (empties >> q) & 1, int(not m.queues[q]))
        for name, want in (("free_count_o", m.free), ("full_o", int(m.full)),
                           ("almost_full_o", int(m.almost_full)),
                           ("enq_ready_o", int(not m.full)),
                           ("deq_ready_o", int(bool(m.queues[deq_q])))):
            got = getattr(d, name).value.integer
            if got != want:
                self._fail(name, got, want)
        if m.queues[deq_q]:
            got = d.deq_data_o.value.integer
            if got != m.queues[deq_q][0]:
                self._fail(f"deq_data_o (head of queue {deq_q})", hex(got), hex(m.queues[deq_q][0]))

    async def cycle(self, enq: tuple[int, int] | None = None,
                    deq: int | None = None) -> tuple[bool, bool]:
        """One clock cycle with the given requests; checks the DUT against the
        reference before the edge. Returns (enqueued, dequeued)."""
        self._drive(enq, deq)
        await ReadOnly()
        deq_q = deq if deq is not None else 0
        self._check(deq_q)
        m, c = self.model, self.cov
        enq_fire = enq is not None and not m.full
        deq_fire = deq is not None and bool(m.queues[deq])

        if m.full:
            c.cycles_full += 1
            c.enq_refused_full += enq is not None
            c.deq_while_full += deq_fire
        if deq is not None and not deq_fire:
            c.deq_refused_empty += 1
            c.enq_to_empty_and_deq_it += enq_fire and enq[0] == deq
        if enq_fire and deq_fire:
            if enq[0] == deq:
                c.both_same_queue += 1
                c.both_same_queue_len1 += len(m.queues[deq]) == 1
            else:
                c.both_other_queue += 1

        # The reference applies the same rule as the RTL: a freed slot and a
        # newly written word both become visible only after the edge.
        if deq_fire:
            m.queues[deq].popleft()
            c.deq += 1
        if enq_fire:
            m.queues[enq[0]].append(enq[1])
            c.enq += 1
            c.per_queue_enq[enq[0]] += 1
        c.max_one_queue = max(c.max_one_queue, max(len(q) for q in m.queues))
        await RisingEdge(self.dut.clk_i)
        self.cycle_no += 1
        return enq_fire, deq_fire

    async def settle(self) -> None:
        """An idle cycle; also checks the state the last edge produced."""
        await self.cycle()

    async def scramble_free_list(self, rng: random.Random) -> None:
        """Fills the buffer round-robin over the queues and drains the queues in
        reverse order. Afterwards the free list no longer runs in slot order,
        so a stale next pointer can no longer point at the right slot by luck
        (after reset, slot i's pointer is i + 1, which is exactly the next free
        slot)."""
        i = 0
        while not self.model.full:
            await self.cycle(enq=(i % self.nq, self.rand_data(rng)))
            i += 1
        for q in reversed(range(self.nq)):
            while self.model.queues[q]:
                await self.cycle(deq=q)

    def rand_data(self, rng: random.Random) -> int:
        return rng.getrandbits(self.width)


def _rng(tag: int) -> random.Random:
    # One stream per test, derived from cocotb's seed, so a test's stimulus
    # does not depend on which tests ran before it.
    return random.Random(cocotb.RANDOM_SEED * 1000 + tag)


@cocotb.test()
async def damq_reset_state(dut):
    """After reset every slot is free and every queue empty."""
    tb = DamqTb(dut)
    await tb.start()
    for q in range(tb.nq):
        await tb.cycle(deq=q)  # checks deq_ready_o == 0 for each queue
    assert tb.cov.deq == 0


@cocotb.test()
async def damq_fill_one_queue(dut):
    """One queue takes the whole buffer; full refuses, then frees one slot."""
    tb = DamqTb(dut)
    rng = _rng(1)
    await tb.start()
    q = tb.nq - 1
    words = [tb.rand_data(rng) for _ in range(tb.ns)]
    for i, w in enumerate(words):
        enq, _ = await tb.cycle(enq=(q, w))
        assert enq, f"enqueue {i} of {tb.ns} refused before the buffer was full"
    await tb.settle()
    assert tb.model.full
    # Full: an enqueue alone is refused and changes nothing.
    enq, _ = await tb.cycle(enq=(0, tb.rand_data(rng)))
    assert not enq
    # Full, dequeue + enqueue in one cycle: the freed slot is not reusable yet.
    enq, deq = await tb.cycle(enq=(0, 0xA5A5A5A5 & ((1 << tb.width) - 1)), deq=q)
    assert deq and not enq
    # ... but it is one cycle later, for any queue.
    enq, _ = await tb.cycle(enq=(0, 0x5A5A5A5A & ((1 << tb.width) - 1)))
    assert enq
    # Drain everything (the cycle checks enforce FIFO order per queue).
    while any(tb.model.queues):
        await tb.cycle(deq=next(i for i, d in enumerate(tb.model.queues) if d))
    await tb.settle()
    assert tb.model.free == tb.ns


@cocotb.test()
async def damq_no_bypass(dut):
    """An empty queue cannot be dequeued in the cycle it is enqueued."""
    tb = DamqTb(dut)
    rng = _rng(2)
    await tb.start()
    for q in range(tb.nq):
        w = tb.rand_data(rng)
        enq, deq = await tb.cycle(enq=(q, w), deq=q)
        assert enq and not deq
        _, deq = await tb.cycle(deq=q)
        assert deq


@cocotb.test()
async def damq_same_queue_enq_deq(dut):
    """Enqueue and dequeue on one queue in one cycle, at depth 1 and deeper."""
    tb = DamqTb(dut)
    rng = _rng(3)
    await tb.start()
    await tb.scramble_free_list(rng)
    for depth in (1, 2, 3):
        q = depth % tb.nq
        for _ in range(depth):
            await tb.cycle(enq=(q, tb.rand_data(rng)))
        for _ in range(2 * tb.ns):  # long enough to cycle every slot through
            enq, deq = await tb.cycle(enq=(q, tb.rand_data(rng)), deq=q)
            assert enq and deq
            # Traffic on the other queues reorders the free list, so that the
            # slot freed here is not simply the next one handed out. It keeps
            # two slots free so the same-queue cycles are never refused.
            if tb.nq > 1 and rng.random() < 0.5:
                others = [i for i in range(tb.nq) if i != q]
                busy = [i for i in others if tb.model.queues[i]]
                enq_o = (rng.choice(others), tb.rand_data(rng)) if tb.model.free > 2 else None
                await tb.cycle(enq=enq_o, deq=rng.choice(busy) if busy else None)
        while any(tb.model.queues):
            await tb.cycle(deq=next(i for i, d in enumerate(tb.model.queues) if d))
    await tb.settle()
    assert tb.model.free == tb.ns


@cocotb.test()
async def damq_all_queues_full_buffer(dut):
    """The buffer filled across all queues, swapped between queues while full,
    then drained in reverse queue order."""
    tb = DamqTb(dut)
    rng = _rng(4)
    await tb.start()
    i = 0
    while not tb.model.full:
        await tb.cycle(enq=(i % tb.nq, tb.rand_data(rng)))
        i += 1
    for i in range(4 * tb.ns):
        # Full every cycle: the dequeue frees a slot, the next cycle's enqueue
        # takes it for another queue.
        src = i % tb.nq
        if i % 2 == 0:
            if tb.model.queues[src]:
                await tb.cycle(deq=src)
        else:
            enq, _ = await tb.cycle(enq=((src + 1) % tb.nq, tb.rand_data(rng)))
            assert enq
    for q in reversed(range(tb.nq)):
        while tb.model.queues[q]:
            await tb.cycle(deq=q)
    await tb.settle()
    assert tb.model.free == tb.ns


@cocotb.test()
async def damq_random_traffic(dut):
    """Random enqueue/dequeue traffic in biased phases, checked every cycle."""
    tb = DamqTb(dut)
    rng = _rng(5)
    cycles = int(os.environ.get("SYNCFAB_DAMQ_CYCLES", "20000"))
    dut._log.info("damq_random_traffic: seed %d (RANDOM_SEED), %d cycles, params %s",
                  cocotb.RANDOM_SEED, cycles, damq_params())
    await tb.start()
    # (probability of an enqueue request, of a dequeue request, hot queue or None)
    phases = [(0.9, 0.3, None), (0.3, 0.9, None), (0.6, 0.6, None),
              (0.8, 0.5, 0), (0.5, 0.5, None), (0.95, 0.95, None)]
    phase_len = 400
    for n in range(cycles):
        p_enq, p_deq, hot = phases[(n // phase_len) % len(phases)]
        enq = deq = None
        if rng.random() < p_enq:
            q = hot if hot is not None and rng.random() < 0.8 else rng.randrange(tb.nq)
            enq = (q, tb.rand_data(rng))
        if rng.random() < p_deq:
            # Mostly ask a non-empty queue, sometimes an empty one (refused).
            busy = [i for i, d in enumerate(tb.model.queues) if d]
            deq = rng.choice(busy) if busy and rng.random() < 0.85 else rng.randrange(tb.nq)
        await tb.cycle(enq, deq)
    c = tb.cov
    dut._log.info("damq_random_traffic coverage: %s", c)
    corners = {
        "cycles full": c.cycles_full, "enqueue refused while full": c.enq_refused_full,
        "dequeue while full": c.deq_while_full, "enq+deq same queue": c.both_same_queue,
        "enq+deq same queue at depth 1": c.both_same_queue_len1,
        "enq+deq different queues": c.both_other_queue,
        "dequeue refused (empty)": c.deq_refused_empty,
        "enqueue to empty queue + dequeue it": c.enq_to_empty_and_deq_it,
    }
    if cycles >= 5000:  # shorter runs (debugging) are not held to coverage
        missed = [k for k, v in corners.items() if v == 0]
        assert not missed, f"random traffic never reached: {missed} (seed {cocotb.RANDOM_SEED})"


# The default configuration, and a small odd one: a queue count and slot count
# that are not powers of two, a 1-slot almost-full margin and narrow data.
CONFIGS = [
    DEFAULT_PARAMS,
    {"NumQueues": 3, "NumSlots": 5, "Width": 8, "AlmostFullSlots": 1},
]


def _config_id(p: dict[str, int]) -> str:
    return f"q{p['NumQueues']}_s{p['NumSlots']}_w{p['Width']}_af{p['AlmostFullSlots']}"


@pytest.mark.parametrize("params", CONFIGS, ids=[_config_id(p) for p in CONFIGS])
def test_damq(params: dict[str, int]) -> None:
    """pytest entry: build rtl/common/damq.f with Verilator and run the cocotb tests above."""
    import cocotb_run  # pytest side only: the simulator never needs the runner

    cocotb_run.run(
        top="damq",
        filelist="rtl/common/damq.f",
        test_module="test_damq",
        parameters=params,
        test_env={PARAMS_ENV: json.dumps(params)},
    )
