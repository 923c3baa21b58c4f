"""cocotb tests of switch_top (rtl/switch/switch_top.sv): forwarding and
multicast tables programmed through the APB port by register name
(tb/cocotb/syncfab_spec.py reads the generated map), packets driven into the
ports and checked on the right outputs with their contents intact, one drop
reason and one received pause.

The headers are the golden vectors the C++ format tests decode
(tests/spec/vectors/formats.json): pkt_hdr_notify (unicast to LID 0x0102),
pkt_hdr_data_mcast (a 9-flit DATA packet to MLID 0xC000) and the PFC frame
pfc_xoff_prio3; payload flits and the extra unicast traffic are random from
RANDOM_SEED. Expected results follow docs/switch-datapath.md,
docs/switch-driver.md and docs/switch-pfc.md.

The cocotb tests are named switch_* so that pytest does not collect them;
pytest runs test_switch_top() at the bottom, which builds the model and runs
them all.
"""

from __future__ import annotations

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge

from apb import ApbRequester, Csr
from streams import Links, Packet
from syncfab_spec import formats, golden, regmap

# One verilated shape: 4 ports are enough for fan-out minus the input; the
# LFT keeps its default size (LFT_ENTRIES) so that the golden header's LID
# 0x0102 is routable; a small MFT and buffer keep the model small.
PARAMS = {"NumPorts": 4, "BufCells": 128, "MftEntries": 16}
PORTS = PARAMS["NumPorts"]

# TBL_ADDR.TABLE values and the entry word's VALID bit: switch_csr.rdl's
# description of TBL_ADDR / TBL_WDATA (the word's layout differs by table,
# so the RDL has one DATA field; the driver and switch_pkg read the same text).
TABLE_LFT, TABLE_MFT = 0, 1
DRAIN_QUIET = 200


def _rng(tag: int) -> random.Random:
    return random.Random(cocotb.RANDOM_SEED * 1000 + tag)


class SwitchTb:
    def __init__(self, dut, rng: random.Random, tx_stall: float = 0.0) -> None:
        self.dut = dut
        self.fmt = formats()
        self.regs = regmap("switch_csr")
        self.rng = rng
        self.apb = ApbRequester(dut, dut.clk_i)
        self.csr = Csr(self.apb, self.regs)
        self.flit_bits = self.fmt.const["FLIT_BITS"]
        self.links = Links(dut, dut.clk_i, PORTS, self.flit_bits, rng, tx_stall)
        self.entry_valid = 1 << (self.regs.width("TBL_WDATA", "DATA") - 1)

    async def start(self) -> None:
        d = self.dut
        cocotb.start_soon(Clock(d.clk_i, 10, units="ns").start())
        d.rst_ni.value = 0
        await ClockCycles(d.clk_i, 3)
        d.rst_ni.value = 1
        self.links.start()
        await RisingEdge(d.clk_i)
        hw = await self.csr.read("HW_CFG")
        assert self.regs.get("HW_CFG", "NUM_PORTS", hw) == PORTS, f"HW_CFG {hw:#x}"

    async def table_write(self, table: int, index: int, word: int) -> None:
        await self.csr.write("TBL_ADDR", INDEX=index, TABLE=table)
        await self.csr.write("TBL_WDATA", DATA=word)
        await self.csr.write("TBL_CMD", WRITE=1)
        for _ in range(50):
            if not await self.csr.field("TBL_STATUS", "BUSY"):
                return
        raise AssertionError(f"TBL_STATUS.BUSY stuck after writing table {table} entry {index}")

    async def table_read(self, table: int, index: int) -> int:
        await self.csr.write("TBL_ADDR", INDEX=index, TABLE=table)
        await self.csr.write("TBL_CMD", READ=1)
        for _ in range(50):
            if not await self.csr.field("TBL_STATUS", "BUSY"):
                return await self.csr.field("TBL_RDATA", "DATA")
        raise AssertionError(f"TBL_STATUS.BUSY stuck after reading table {table} entry {index}")

    async def set_lft(self, lid: int, port: int) -> None:
        await self.table_write(TABLE_LFT, lid, self.entry_valid | port)
        assert await self.table_read(TABLE_LFT, lid) == self.entry_valid | port, f"LFT[{lid:#x}]"

    async def set_mft(self, mlid: int, mask: int) -> None:
        index = mlid - self.fmt.const["MLID_BASE"]
        await self.table_write(TABLE_MFT, index, self.entry_valid | mask)
        assert await self.table_read(TABLE_MFT, index) == self.entry_valid | mask, f"MFT[{mlid:#x}]"

    async def counter(self, port: int, prio: int, kind: str) -> int:
        await self.csr.write("CNT_SEL", PORT=port, PRIO=prio,
                             KIND=self.fmt.enum("sw_counter", kind))
        return await self.csr.field("CNT_VALUE", "COUNT")

    def packet(self, header: int, rng: random.Random) -> list[int]:
        """The header flit then len_flits - 1 random payload flits."""
        n = self.fmt.unpack("pkt_hdr", header)["len_flits"]
        return [header] + [rng.getrandbits(self.flit_bits) for _ in range(n - 1)]

    def data_out(self, port: int) -> list[Packet]:
        """Packets sent on `port` other than PFC frames."""
        pfc = self.fmt.enum("pkt_type", "PFC")
        return [p for p in self.links.received[port]
                if self.fmt.unpack("pkt_hdr", p.flits[0])["pkt_type"] != pfc]

    async def drain(self, limit: int = 20000) -> None:
        """Until every queued packet was taken and no flit left for DRAIN_QUIET cycles."""
        quiet = 0
        seen = -1
        for _ in range(limit):
            await RisingEdge(self.dut.clk_i)
            total = sum(len(r) for r in self.links.received)
            quiet = quiet + 1 if total == seen and not self.links.pending() else 0
            seen = total
            if quiet >= DRAIN_QUIET:
                return
        raise AssertionError(f"the switch did not drain within {limit} cycles")


def _flits(pkts: list[Packet]) -> list[list[int]]:
    return [p.flits for p in pkts]


def _hex(pkts: list[list[int]]) -> list[list[str]]:
    """Packets for a failure message: flits in hex, header first."""
    return [[f"{f:#x}" for f in p] for p in pkts]


@cocotb.test()
async def switch_unicast_and_multicast(dut):
    """LFT and MFT entries programmed through APB; the golden unicast header
    from port 0 leaves on port 2 only, the golden multicast DATA packet from
    port 1 leaves on every port of its MFT mask but the input (datapath
    "Lookup", "Enqueue"), each copy bit for bit the packet sent; random
    unicast packets to two more LIDs arrive on their ports, in order per
    input, output and priority; RX and TX counters match."""
    rng = _rng(1)
    tb = SwitchTb(dut, rng, tx_stall=0.2)
    dut._log.info("switch_unicast_and_multicast: seed %d (RANDOM_SEED)", cocotb.RANDOM_SEED)
    await tb.start()
    f = tb.fmt
    ucast = golden("pkt_hdr_notify")
    mcast = golden("pkt_hdr_data_mcast")
    await tb.set_lft(ucast.fields["dst_lid"], 2)
    mask = 0b1011  # ports 0, 1 and 3; the input (1) gets no copy
    await tb.set_mft(mcast.fields["dst_lid"], mask)
    extra_lids = {0x0021: 3, 0x0022: 0}
    for lid, port in extra_lids.items():
        await tb.set_lft(lid, port)
    await tb.csr.write("CTRL", ENABLE=1)

    p_ucast = tb.packet(ucast.value, rng)
    p_mcast = tb.packet(mcast.value, rng)
    tb.links.send(0, p_ucast)
    tb.links.send(1, p_mcast)
    # Random unicast DATA packets from ports 2 and 3 to the extra LIDs.
    expected: dict[int, list[list[int]]] = {o: [] for o in range(PORTS)}
    rx_count: dict[tuple[int, int], int] = {}
    tx_count: dict[tuple[int, int], int] = {}
    for i in range(12):
        inp = 2 + i % 2
        lid = rng.choice(list(extra_lids))
        prio = rng.randrange(f.const["NUM_PRIO"])
        hdr = f.pack("pkt_hdr", {"pkt_type": "DATA", "len_flits": rng.randrange(1, 6),
                                 "dst_lid": lid, "src_lid": 0x40 + inp, "prio": prio,
                                 "flow_label": i})
        pkt = tb.packet(hdr, rng)
        tb.links.send(inp, pkt)
        expected[extra_lids[lid]].append(pkt)
        rx_count[(inp, prio)] = rx_count.get((inp, prio), 0) + 1
        tx_count[(extra_lids[lid], prio)] = tx_count.get((extra_lids[lid], prio), 0) + 1
    await tb.drain()

    out = {o: tb.data_out(o) for o in range(PORTS)}
    assert [p.flits for p in out[2]] == [p_ucast], f"port 2: {_hex(_flits(out[2]))}"
    for o in (0, 3):
        got = _flits(out[o])
        assert got.count(p_mcast) == 1, f"port {o}: multicast copy missing or altered"
        got.remove(p_mcast)
        # Random packets: the order of one input's packets of one priority
        # (one VOQ) is kept; queues of different priorities may overtake.
        def key(pkt: list[int]) -> tuple[int, int]:
            h = f.unpack("pkt_hdr", pkt[0])
            return h["src_lid"], h["prio"]
        for k in {key(p) for p in got} | {key(p) for p in expected[o]}:
            mine = [p for p in got if key(p) == k]
            want = [p for p in expected[o] if key(p) == k]
            assert mine == want, f"port {o}, (src_lid, prio) {k}: {_hex(mine)} != {_hex(want)}"
        assert len(got) == len(expected[o]), f"port {o}: unexpected packets"
    assert not out[1], f"port 1 (the multicast input) got {_hex(_flits(out[1]))}"
    u_prio, m_prio = ucast.fields["prio"], mcast.fields["prio"]
    assert await tb.counter(0, u_prio, "RX") == 1
    assert await tb.counter(2, u_prio, "TX") == 1
    assert await tb.counter(1, m_prio, "RX") == 1
    for (port, prio), n in rx_count.items():
        assert await tb.counter(port, prio, "RX") == n, f"RX at ({port}, {prio})"
    for o in (0, 3):
        want = tx_count.get((o, m_prio), 0) + 1
        assert await tb.counter(o, m_prio, "TX") == want, f"TX at ({o}, {m_prio})"


@cocotb.test()
async def switch_no_route_drop(dut):
    """A LID without an LFT entry and an MLID without an MFT entry are
    dropped and counted DROP_NO_ROUTE at (input, prio); nothing leaves; a
    routed packet after them passes. An unmapped CSR offset and an unaligned
    one are PSLVERR (the latter writes nothing)."""
    rng = _rng(2)
    tb = SwitchTb(dut, rng)
    await tb.start()
    f = tb.fmt
    await tb.set_lft(0x30, 1)
    await tb.csr.write("CTRL", ENABLE=1)
    hole = next(a for a in range(0, 0x1000, 4) if not tb.regs.is_mapped(a))
    assert (await tb.apb.transfer(hole, write=False)).slverr, f"unmapped {hole:#x}: no PSLVERR"
    # Unaligned: PSLVERR, PRDATA 0, nothing written.
    scratch = tb.regs.addr("SCRATCH")
    await tb.csr.write("SCRATCH", 0x1111_1111)
    for lsb in (1, 2, 3):
        r = await tb.apb.transfer(scratch + lsb, write=True, data=0x2222_2222)
        assert r.slverr, f"unaligned write {scratch + lsb:#x}: no PSLVERR"
        r = await tb.apb.transfer(scratch + lsb, write=False)
        assert r.slverr and r.data == 0, f"unaligned read {scratch + lsb:#x}: no PSLVERR or data"
    assert await tb.csr.read("SCRATCH") == 0x1111_1111, "a refused unaligned write changed SCRATCH"
    for dst in (0x31, f.const["MLID_BASE"] + 5):
        tb.links.send(3, tb.packet(f.pack("pkt_hdr", {"pkt_type": "DATA", "len_flits": 2,
                                                       "dst_lid": dst, "prio": 6}), rng))
    good = tb.packet(f.pack("pkt_hdr", {"pkt_type": "DATA", "len_flits": 3, "dst_lid": 0x30,
                                        "prio": 6}), rng)
    tb.links.send(3, good)
    await tb.drain()
    assert await tb.counter(3, 6, "DROP_NO_ROUTE") == 2
    assert await tb.counter(3, 6, "RX") == 3
    assert _flits(tb.data_out(1)) == [good]
    assert not any(tb.links.received[o] for o in (0, 2, 3))


@cocotb.test()
async def switch_pause_received(dut):
    """The golden pause frame pfc_xoff_prio3 on port 2 (PFC on for priority
    3 there) stops port 2's priority-3 queue; priority 5 keeps going; a
    resume frame (quanta 0) releases it (docs/switch-pfc.md); PAUSE_RX and
    RESUME_RX count once each at (2, 3)."""
    rng = _rng(3)
    tb = SwitchTb(dut, rng)
    await tb.start()
    f = tb.fmt
    xoff = golden("pfc_xoff_prio3")
    paused = next(p for p in range(f.const["NUM_PRIO"]) if xoff.fields["class_enable"] >> p & 1)
    await tb.csr.write("PORT[2].PFC_EN", MASK=1 << paused)
    await tb.set_lft(0x50, 2)
    await tb.csr.write("CTRL", ENABLE=1)
    flit_mask = (1 << tb.flit_bits) - 1
    tb.links.send(2, [xoff.value & flit_mask, xoff.value >> tb.flit_bits])
    await ClockCycles(dut.clk_i, 20)
    held = tb.packet(f.pack("pkt_hdr", {"pkt_type": "DATA", "len_flits": 2, "dst_lid": 0x50,
                                        "prio": paused, "flow_label": 1}), rng)
    passes = tb.packet(f.pack("pkt_hdr", {"pkt_type": "DATA", "len_flits": 2, "dst_lid": 0x50,
                                          "prio": 5, "flow_label": 2}), rng)
    tb.links.send(0, held)
    tb.links.send(1, passes)
    await tb.drain()
    assert _flits(tb.data_out(2)) == [passes], "only priority 5 passes during the pause"
    assert await tb.counter(2, paused, "PAUSE_RX") == 1
    resume = f.pack("pfc_frame", {"pkt_type": "PFC", "len_flits": 2,
                                  "class_enable": 1 << paused, "quanta": [0] * f.const["NUM_PRIO"]})
    tb.links.send(2, [resume & flit_mask, resume >> tb.flit_bits])
    await tb.drain()
    assert _flits(tb.data_out(2)) == [passes, held], "the paused packet after the resume"
    assert await tb.counter(2, paused, "RESUME_RX") == 1


def test_switch_top() -> None:
    """pytest entry: build rtl/switch/switch_top.f with Verilator and run the cocotb tests above."""
    import cocotb_run  # pytest side only: the simulator never needs the runner

    cocotb_run.run(top="switch_top", filelist="rtl/switch/switch_top.f",
                   test_module="test_switch_top", parameters=PARAMS)
