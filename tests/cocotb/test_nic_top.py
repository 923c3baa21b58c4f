"""cocotb tests of nic_top (rtl/nic/nic_top.sv): the NIC programmed through
its APB port as docs/nic/programming.md "Bring-up" says, descriptors posted
through the HDQ window or fetched from the SDQ ring in host memory, the
barrier's peers played on the link.

Descriptors, packets and completion entries are packed from the generated
format layouts; registers are addressed by name from the generated map
(tb/cocotb/syncfab_spec.py). The descriptors are the golden vectors the C++
format tests decode (tests/spec/vectors/formats.json): desc_k2_p9_rank0 is
rank 0 of a 9-rank dissemination barrier with fan-out 2 (LID = rank + 1),
desc_header_all_ones is malformed (opcode 0xFF). Expected results follow
docs/barrier-protocol.md; the rule is named next to each check.

The cocotb tests are named nic_* so that pytest does not collect them; pytest
runs test_nic_top() at the bottom, which builds the model and runs them all.
"""

from __future__ import annotations

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge

from apb import ApbRequester, Csr
from host_memory import HostMemory
from streams import Links, Packet
from syncfab_spec import formats, golden, regmap

# The model's parameters (those of the C++ tests' vl_nic_top, rtl/nic/CMakeLists.txt).
PARAMS = {"NumCtx": 4, "ReqDamqSlots": 4, "RespDamqSlots": 2, "HdqDepth": 2}

CQ_BASE = 0x1_0000
CQ_SIZE = 4
SDQ_BASE = 0x2_0000
SDQ_SIZE = 2
TIMEOUT_CYCLES = 5000

# Every event counter of the map (CNT_*): a test names those it expects
# non-zero, every other one must read 0.
COUNTER_PREFIX = "CNT_"


def _rng(tag: int) -> random.Random:
    return random.Random(cocotb.RANDOM_SEED * 1000 + tag)


class NicTb:
    def __init__(self, dut, rng: random.Random, tx_stall: float = 0.0) -> None:
        self.dut = dut
        self.fmt = formats()
        self.regs = regmap("nic_csr")
        self.rng = rng
        self.apb = ApbRequester(dut, dut.clk_i)
        self.csr = Csr(self.apb, self.regs)
        self.mem = HostMemory(dut, dut.clk_i)
        self.link = Links(dut, dut.clk_i, 1, self.fmt.const["FLIT_BITS"], rng, tx_stall,
                          on_packet=self._on_tx)
        self.own_lid = 0
        self.tx: list[dict] = []  # headers the NIC sent, decoded, with "cycle"

    async def start(self, own_lid: int) -> None:
        d = self.dut
        cocotb.start_soon(Clock(d.clk_i, 10, units="ns").start())
        d.rst_ni.value = 0
        await ClockCycles(d.clk_i, 3)
        d.rst_ni.value = 1
        self.mem.start()
        self.link.start()
        await RisingEdge(d.clk_i)
        await self.bring_up(own_lid)

    async def bring_up(self, own_lid: int) -> None:
        """docs/nic/programming.md "Bring-up", steps 1 to 8."""
        c, r = self.csr, self.regs
        magic = r.reset("ID", "MAGIC")
        assert await c.field("ID", "MAGIC") == magic, "ID.MAGIC"
        hw_cfg = await c.read("HW_CFG")
        assert r.get("HW_CFG", "NUM_CTX", hw_cfg) == PARAMS["NumCtx"], f"HW_CFG {hw_cfg:#x}"
        assert r.get("HW_CFG", "HDQ_DEPTH", hw_cfg) == PARAMS["HdqDepth"], f"HW_CFG {hw_cfg:#x}"
        await c.write("CTRL", 0)
        await c.write("CTRL", SOFT_RESET=1)
        for _ in range(100):
            if not await c.field("STATUS", "RESETTING"):
                break
        else:
            raise AssertionError("STATUS.RESETTING stuck at 1 after a soft reset")
        await c.write("INTR_ENABLE", 0)
        await c.write("INTR_STATUS", r.all_fields("INTR_STATUS"))
        await c.write("CQ_BASE_LO", CQ_BASE & 0xFFFF_FFFF)
        await c.write("CQ_BASE_HI", CQ_BASE >> 32)
        await c.write("CQ_SIZE", ENTRIES=CQ_SIZE)
        await c.write("CQ_TAIL", INDEX=0)
        await c.write("SDQ_BASE_LO", SDQ_BASE & 0xFFFF_FFFF)
        await c.write("SDQ_BASE_HI", SDQ_BASE >> 32)
        await c.write("SDQ_SIZE", ENTRIES=SDQ_SIZE)
        await c.write("SDQ_PROD", INDEX=0)
        await c.write("NODE_LID", LID=own_lid)
        self.own_lid = own_lid
        await c.write("INTR_ENABLE", DONE=1, ERROR=1)
        await c.write("CTRL", ENABLE=1)

    # -- descriptors -------------------------------------------------------

    async def post_hdq(self, desc: bytes) -> None:
        """docs/nic/programming.md "Submitting through the HDQ"."""
        assert not await self.csr.field("HDQ_POST", "FULL"), "HDQ full before the post"
        window = self.regs.mem("HDQ_WINDOW")["offset"]
        for w in range(len(desc) // 4):
            await self.apb.write(window + 4 * w, int.from_bytes(desc[4 * w:4 * w + 4], "little"))
        await self.csr.write("HDQ_POST", POST=1)

    async def post_sdq(self, slot: int, desc: bytes) -> None:
        """docs/nic/programming.md "Submitting through the SDQ": slot i at
        SDQ_BASE + i x descriptor size; the SDQ_PROD write is the doorbell."""
        self.mem.load(SDQ_BASE + slot * len(desc), desc)
        await self.csr.write("SDQ_PROD", INDEX=(slot + 1) % SDQ_SIZE)

    # -- the peers ----------------------------------------------------------

    def header(self, **fields) -> int:
        return self.fmt.pack("pkt_hdr", {"len_flits": 1, **fields})

    def _on_tx(self, port: int, pkt: Packet) -> None:
        assert len(pkt.flits) == 1, f"the engine sent a {len(pkt.flits)}-flit packet"
        h = self.fmt.unpack("pkt_hdr", pkt.flits[0])
        h["cycle"] = pkt.last_cycle
        self.tx.append(h)
        # Every peer ACKs every NOTIFY (§6): src/dst swapped, ctx/epoch/round copied.
        if h["pkt_type"] == self.fmt.enum("pkt_type", "NOTIFY"):
            self.link.send(0, [self.header(pkt_type="ACK", dst_lid=h["src_lid"],
                                           src_lid=h["dst_lid"], prio=h["prio"], ctx=h["ctx"],
                                           epoch=h["epoch"], round=h["round"])])

    def sent(self, kind: str) -> list[dict]:
        return [h for h in self.tx if h["pkt_type"] == self.fmt.enum("pkt_type", kind)]

    # -- completions -------------------------------------------------------

    async def wait_cq_entries(self, n: int) -> list[dict]:
        """Waits until the CQ holds `n` entries (CQ_HEAD), returns them decoded."""
        for _ in range(TIMEOUT_CYCLES // 8):
            if await self.csr.field("CQ_HEAD", "INDEX") >= n:
                break
            await ClockCycles(self.dut.clk_i, 4)
        else:
            raise AssertionError(f"no {n} CQ entries within {TIMEOUT_CYCLES} cycles "
                                 f"(memory writes {self.mem.writes})")
        size = self.fmt.size_bytes("cq_entry")
        return [self.fmt.unpack("cq_entry", int.from_bytes(
            self.mem.read_bytes(CQ_BASE + i * size, size), "little")) for i in range(n)]

    async def check_counters(self, **nonzero: int) -> None:
        names = [n for n, _ in self.regs.registers() if n.startswith(COUNTER_PREFIX)]
        unknown = set(nonzero) - set(names)
        assert not unknown, f"no such counters: {unknown}"
        got = {n: await self.csr.read(n) for n in names}
        want = {n: nonzero.get(n, 0) for n in names}
        diff = {n: (got[n], want[n]) for n in names if got[n] != want[n]}
        assert not diff, f"counters (read, expected): {diff}"


@cocotb.test()
async def nic_barrier_golden_descriptor(dut):
    """The golden descriptor desc_k2_p9_rank0 through the HDQ: the NIC sends
    round 0's NOTIFYs at once, round 1's only after both of round 0's peers
    were heard (§6 round gate), ACKs every peer NOTIFY (§4 rule 5), and
    completes with one CQ entry, OK, phase 1, and the DONE interrupt (§7)."""
    rng = _rng(1)
    tb = NicTb(dut, rng, tx_stall=0.3)
    vec = golden("desc_k2_p9_rank0")
    d = vec.fields
    own_lid = 1  # rank 0 of LIDs rank + 1 (the vector's peers are LIDs 2..9)
    dut._log.info("nic_barrier_golden_descriptor: seed %d (RANDOM_SEED)", cocotb.RANDOM_SEED)
    await tb.start(own_lid)
    await tb.post_hdq(vec.data)

    rounds = d["round"][:d["num_rounds"]]
    k = d["fanout_k"]
    # The peers' NOTIFYs, in random order and at random times; round 0's
    # last one comes late so that the round gate is visible.
    notifies = [(r, src) for r, rd in enumerate(rounds) for src in rd["src_lid"][:k]]
    rng.shuffle(notifies)
    late = next(i for i, (r, _) in enumerate(notifies) if r == 0)
    notifies.append(notifies.pop(late))
    last_round0 = None
    for r, src in notifies:
        await ClockCycles(dut.clk_i, rng.randrange(20, 80))
        tb.link.send(0, [tb.header(pkt_type="NOTIFY", dst_lid=own_lid, src_lid=src,
                                   prio=3, ctx=d["ctx"], epoch=d["epoch"], round=r)])
        if r == 0:
            last_round0 = len(tb.link.taken_cycles(0)) + tb.link.pending(0)
    entries = await tb.wait_cq_entries(1)

    f = tb.fmt
    ok = f.enum("cq_status", "OK")
    assert entries[0] == {"ctx": d["ctx"], "status": ok, "err_code": f.enum("err_code", "NONE"),
                          "epoch": d["epoch"], "phase": 1}, f"CQ entry {entries[0]}"
    # Sends: every used dst slot of every round, once, with this NIC's LID,
    # the descriptor's ctx/epoch and NET_CFG.TC's reset priority.
    tc = tb.regs.reset("NET_CFG", "TC")
    sent = sorted((h["round"], h["dst_lid"]) for h in tb.sent("NOTIFY"))
    want = sorted((r, dst) for r, rd in enumerate(rounds) for dst in rd["dst_lid"][:k])
    assert sent == want, f"NOTIFYs sent {sent}, descriptor {want}"
    for h in tb.sent("NOTIFY") + tb.sent("ACK"):
        got = (h["src_lid"], h["ctx"], h["epoch"], h["prio"])
        want = (own_lid, d["ctx"], d["epoch"], tc)
        assert got == want, f"(src_lid, ctx, epoch, prio) {got}, expected {want}: {h}"
    # Round gate (§6): no round-1 NOTIFY before round 0's last peer NOTIFY was taken.
    gate = tb.link.taken_cycles(0)[last_round0 - 1]
    first_r1 = min(h["cycle"] for h in tb.sent("NOTIFY") if h["round"] == 1)
    assert first_r1 > gate, f"round 1 sent at cycle {first_r1}, round 0 complete at {gate}"
    # One ACK per peer NOTIFY, to that peer, round copied (§4 rule 5).
    acks = sorted((h["round"], h["dst_lid"]) for h in tb.sent("ACK"))
    assert acks == sorted(notifies), f"ACKs {acks}, peer NOTIFYs {sorted(notifies)}"
    assert await tb.csr.field("INTR_STATUS", "DONE") == 1
    assert dut.intr_o.value.integer == 1, "intr_o with INTR_ENABLE.DONE"
    n_sends = len(sent)
    await tb.check_counters(CNT_NOTIF_SENT=n_sends, CNT_NOTIF_RECV=len(notifies),
                            CNT_COMPLETION=1)
    assert not [w for w in tb.mem.writes if w.addr < CQ_BASE], "completion write without the flag"


@cocotb.test()
async def nic_malformed_descriptor(dut):
    """The golden descriptor desc_header_all_ones (opcode 0xFF) fetched from
    the SDQ: it completes at once with DESC_ERROR / BAD_OPCODE and the raw
    ctx and epoch (§3, §7), CNT_ERROR, INTR_STATUS.ERROR; nothing is sent."""
    tb = NicTb(dut, _rng(2))
    vec = golden("desc_header_all_ones")
    await tb.start(own_lid=1)
    await tb.post_sdq(0, vec.data)
    entries = await tb.wait_cq_entries(1)
    f = tb.fmt
    assert entries[0] == {"ctx": vec.fields["ctx"], "status": f.enum("cq_status", "DESC_ERROR"),
                          "err_code": f.enum("err_code", "BAD_OPCODE"),
                          "epoch": vec.fields["epoch"], "phase": 1}, f"CQ entry {entries[0]}"
    size = f.size_bytes("barrier_desc")
    assert sorted(tb.mem.reads) == [SDQ_BASE + 8 * i for i in range(size // 8)], "slot 0 read once"
    assert await tb.csr.field("SDQ_CONS", "INDEX") == 1
    assert await tb.csr.field("INTR_STATUS", "ERROR") == 1
    assert await tb.csr.field("INTR_STATUS", "DONE") == 0
    await tb.check_counters(CNT_COMPLETION=1, CNT_ERROR=1)
    # The error completion never does the completion write (§7 step 1).
    assert [w.addr for w in tb.mem.writes] == [CQ_BASE, CQ_BASE + 8], tb.mem.writes
    assert not tb.tx, f"the engine sent {tb.tx}"


@cocotb.test()
async def nic_pause_holds_sends(dut):
    """The golden pause frame pfc_xoff_prio3 pauses NET_CFG.TC (3 at reset):
    STATUS.TX_PAUSED, and the engine sends nothing, NOTIFY or ACK, while the
    golden barrier is posted and a peer's NOTIFY arrives (docs/nic/top.md
    "PFC reception"); a resume frame (quanta 0) releases it, the other
    peers' NOTIFYs follow and the barrier completes. CNT_PFC_RX counts both
    frames, CNT_PAUSE_RX the pause. One NOTIFY only during the pause: more
    fill the response queue, hold rx and with it the resume behind them
    until the pause's timer ends (docs/nic/top.md "A frame behind a blocked
    packet waits")."""
    rng = _rng(5)
    tb = NicTb(dut, rng)
    f = tb.fmt
    xoff = golden("pfc_xoff_prio3")
    tc = tb.regs.reset("NET_CFG", "TC")
    assert xoff.fields["class_enable"] >> tc & 1 and xoff.fields["quanta"][tc], "vector pauses TC"
    vec = golden("desc_k2_p9_rank0")
    d = vec.fields
    own_lid = 1
    await tb.start(own_lid)
    flit_bits = f.const["FLIT_BITS"]
    tb.link.send(0, [xoff.value & ((1 << flit_bits) - 1), xoff.value >> flit_bits])
    for _ in range(50):
        if await tb.csr.field("STATUS", "TX_PAUSED"):
            break
    else:
        raise AssertionError("STATUS.TX_PAUSED not set by the pause frame")
    await tb.post_hdq(vec.data)
    k = d["fanout_k"]
    notifies = [(r, src) for r, rd in enumerate(d["round"][:d["num_rounds"]])
                for src in rd["src_lid"][:k]]

    def notify(r: int, src: int) -> None:
        tb.link.send(0, [tb.header(pkt_type="NOTIFY", dst_lid=own_lid, src_lid=src, prio=tc,
                                   ctx=d["ctx"], epoch=d["epoch"], round=r)])

    notify(*notifies[0])
    # The pause (0xFFFF quanta) outlasts this wait by far.
    await ClockCycles(dut.clk_i, 300)
    assert not tb.link.pending(0), "the NOTIFY was not taken during the pause"
    assert not tb.tx, f"sent while paused: {tb.tx}"
    assert await tb.csr.field("STATUS", "TX_PAUSED") == 1
    resume = f.pack("pfc_frame", {"pkt_type": "PFC", "len_flits": 2, "class_enable": 1 << tc,
                                  "quanta": [0] * f.const["NUM_PRIO"]})
    tb.link.send(0, [resume & ((1 << flit_bits) - 1), resume >> flit_bits])
    for r, src in notifies[1:]:
        notify(r, src)
    entries = await tb.wait_cq_entries(1)
    assert (entries[0]["status"], entries[0]["epoch"]) == (f.enum("cq_status", "OK"), d["epoch"])
    assert await tb.csr.field("STATUS", "TX_PAUSED") == 0
    assert len(tb.sent("ACK")) == len(notifies)
    await tb.check_counters(CNT_PFC_RX=2, CNT_PAUSE_RX=1, CNT_NOTIF_SENT=len(tb.sent("NOTIFY")),
                            CNT_NOTIF_RECV=len(notifies), CNT_COMPLETION=1)


@cocotb.test()
async def nic_apb_errors(dut):
    """§8: an unmapped offset and a write to a read-only register raise
    PSLVERR; the access changes nothing and the next one works."""
    tb = NicTb(dut, _rng(3))
    await tb.start(own_lid=1)
    regs = tb.regs
    hole = next(a for a in range(0, 0x1000, 4) if not regs.is_mapped(a))
    r = await tb.apb.transfer(hole, write=False)
    assert r.slverr, f"read of unmapped {hole:#x}: no PSLVERR"
    # The block decodes its whole 4 KiB window: the last word is past the map.
    last = max(a for a in range(0, 0x1000, 4) if not regs.is_mapped(a))
    r = await tb.apb.transfer(last, write=True, data=0x1234)
    assert r.slverr, f"write to unmapped {last:#x}: no PSLVERR"
    before = await tb.csr.read("HW_CFG")
    r = await tb.apb.transfer(regs.addr("HW_CFG"), write=True, data=~before & 0xFFFF_FFFF)
    assert r.slverr, "write to read-only HW_CFG: no PSLVERR"
    assert await tb.csr.read("HW_CFG") == before, "HW_CFG changed by a refused write"
    await tb.csr.write("SCRATCH", 0xA5C3_0F96)
    assert await tb.csr.read("SCRATCH") == 0xA5C3_0F96


@cocotb.test()
async def nic_apb_unaligned_is_an_error(dut):
    """§8: an unaligned access raises PSLVERR, reads 0 and writes nothing,
    at each of the three unaligned offsets of a register, reads and writes;
    the aligned access after it works."""
    tb = NicTb(dut, _rng(4))
    await tb.start(own_lid=1)
    scratch = tb.regs.addr("SCRATCH")
    await tb.csr.write("SCRATCH", 0x1111_1111)
    for lsb in (1, 2, 3):
        r = await tb.apb.transfer(scratch + lsb, write=True, data=0x2222_2222)
        assert r.slverr, f"unaligned write {scratch + lsb:#x}: no PSLVERR"
        r = await tb.apb.transfer(scratch + lsb, write=False)
        assert r.slverr, f"unaligned read {scratch + lsb:#x}: no PSLVERR"
        assert r.data == 0, f"unaligned read {scratch + lsb:#x}: PRDATA {r.data:#010x}, not 0"
        after = await tb.csr.read("SCRATCH")
        assert after == 0x1111_1111, f"a refused write at {scratch + lsb:#x}: SCRATCH {after:#010x}"


def test_nic_top() -> None:
    """pytest entry: build rtl/nic/nic_top.f with Verilator and run the cocotb tests above."""
    import cocotb_run  # pytest side only: the simulator never needs the runner

    cocotb_run.run(top="nic_top", filelist="rtl/nic/nic_top.f", test_module="test_nic_top",
                   parameters=PARAMS)
