"""Writes this folder's fixtures: outputs in the exact formats nccl-tests and OSU print (their
printf formats; figures invented by the team, none copied). Run it to remake them."""
from pathlib import Path

HERE = Path(__file__).resolve().parent


def nccl(ranks_hosts, rows, version="2.13.9", prefix="", nccl_info=False, program=None, per_iter=False):
    """nccl-tests' text; from 2.17 (program given) with its version line first, the program's name
    and PCI bus ids as 0000:18:00; per_iter: -I 1's extra columns."""
    out = []
    if program:
        out += [f"# nccl-tests version {version} nccl-headers=22807 nccl-library=22807",
                f"# Collective test starting: {program}"]
    out += ["# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
            "validation: 1 graph: 0" + (" unalign: 0" if program else ""), "#"]
    if version and not program:
        out.append(f"# nccl-tests version {version} nccl-headers=22005 nccl-library=22005")
    out.append("# Using devices")
    for r, (h, d) in enumerate(ranks_hosts):
        bus = f"[{0:04x}:{d * 16 + 24:02x}:{0:02x}]" if program else f"[0x{d * 16 + 7:02x}]"
        out.append(f"#  Rank {r:2d} Group  0 Pid {4000 + r:6d} on {h:>10s} device {d:2d} {bus} NVIDIA H100 80GB HBM3")
    if nccl_info:
        out.append(f"{ranks_hosts[0][0]}:4000:4000 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM")
    if per_iter:
        out += ["#", f"# {'':10s}  {'':12s}  {'':8s}  {'':6s}  {'':6s}              out-of-place (+ per-iteration)"
                     "                                in-place (+ per-iteration)",
                "# " + "  ".join(f"{c:>{w}s}" for c, w in zip(
                    ["size", "count", "type", "redop", "root"] + ["time", "algbw", "busbw", "#wrong", "i_min", "i_max",
                                                                  "i_p99", "i_cv%"] * 2,
                    [10, 12, 8, 6, 6] + [7, 6, 6, 6, 7, 7, 7, 7] * 2))]
    else:
        out += ["#",
                "#                                                              out-of-place                       in-place          ",
                "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
                "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "]
    n = len(ranks_hosts)
    for size, t_out, t_in, wrong in rows:
        def cells(t):
            alg = size / t / 1e3
            extra = f"  {t * 0.98:7.2f}  {t * 1.05:7.2f}  {t * 1.04:7.2f}  {1.5:7.2f}" if per_iter else ""
            return f"{t:9.2f}  {alg:6.2f}  {alg * 2 * (n - 1) / n:6.2f}  {wrong:5}{extra}"
        out.append(f"{size:12d}  {size // 4:12d}     float     sum      -1  {cells(t_out)}  {cells(t_in)}")
    out += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 123.4 ", "#"]
    if program:
        out.append(f"# Collective test concluded: {program}")
    return "\n".join(prefix + line for line in out) + "\n"


def nccl_json(ranks_hosts, rows, program="./build/all_reduce_perf"):
    """nccl-tests -J FILE.json (JSON format 3): written as nccl-tests writes it, on one line, its
    doubles with %lf, root a padded string."""
    n = len(ranks_hosts)

    def placement(t, size):
        alg = size / t / 1e3
        return f'{{"time":{t:f},"alg_bw":{alg:f},"bus_bw":{alg * 2 * (n - 1) / n:f},"nwrong":{0.0:f}}}'
    devices = ",".join(f'{{"rank":{r},"group":0,"pid":{4000 + r},"hostname":"{h}","device":{d},'
                       f'"device_hex":"0000:{d * 16 + 24:02x}:00","device_info":"NVIDIA H100 80GB HBM3"}}'
                       for r, (h, d) in enumerate(ranks_hosts))
    results = ",".join(f'{{"size":{size},"count":{size // 4},"type":"float","redop":"sum","root":"    -1",'
                       f'"out_of_place":{placement(t_out, size)},"in_place":{placement(t_in, size)},'
                       f'"actual_iterations":20,"experiment_name":""}}' for size, t_out, t_in, _ in rows)
    return (f'{{"version":3,"start_time":"2026-12-02 10:00:00","args":["{program}","-b","8","-e","128M","-f","2",'
            f'"-J","all_reduce.json"],"env":["NCCL_DEBUG=WARN"],"nccl_version":22807,'
            f'"config":{{"nthreads":1,"ngpus":1,"minimum_bytes":8,"maximum_bytes":134217728,"step_factor":2,'
            f'"warmup_iters":5,"iterations":20,"aggregated_iterations":1,"validation":1,"graph":0,'
            f'"blocking_collectives":"false","per_iter_timing":"false","per_iter_skip":0,"parallel_init":"false",'
            f'"devices":[{devices}]}},"results":[{results}],"out_of_bounds":{{"count":0,"okay":"true"}},'
            f'"average_bus_bandwidth":{{"bandwidth":123.400000,"okay":"unchecked"}},"errors":[],'
            f'"end_time":"2026-12-02 10:00:09"}}')


def imb(sendrecv=False, collectives=()):
    rule = "#" + "-" * 63
    out = [rule, "#    Intel(R) MPI Benchmarks 2021.7, MPI-1 part", rule, "# Date                  : Wed Dec  2 10:00:00 2026",
           "# Machine               : x86_64", "#", "# List of Benchmarks to run:", "", "# PingPong", "# Allreduce", "",
           rule, "# Benchmarking PingPong", "# #processes = 2", rule,
           "       #bytes #repetitions      t[usec]   Mbytes/sec"]
    for size, t in [(0, 1.55), (1, 1.58), (64, 1.75), (4194304, 348.2)]:
        out.append(f"{size:13d}{1000 if size < 65536 else 20:13d}{t:13.2f}{(size / t if t else 0):13.2f}")
    out += ["", rule, "# Benchmarking Allreduce", "# #processes = 4", rule,
            "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]"]
    for size, t in [(0, 0.05), (4, 2.1), (16777216, 2200.5)]:
        out.append(f"{size:13d}{1000 if size < 65536 else 10:13d}{t * 0.97:13.2f}{t * 1.03:13.2f}{t:13.2f}")
    for name in collectives:  # -npmin 4: Allgather, Alltoall, Bcast as IMB prints them (t_min t_max t_avg)
        out += ["", rule, f"# Benchmarking {name}", "# #processes = 4", rule,
                "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]"]
        for size, t in [(0, 0.04), (8, 3.1), (4194304, 1210.0)]:
            out.append(f"{size:13d}{1000 if size < 65536 else 10:13d}{t * 0.97:13.2f}{t * 1.03:13.2f}{t:13.2f}")
    if sendrecv:  # -npmin 2 on two nodes: each rank sends to and receives from the other at once
        out += ["", rule, "# Benchmarking Sendrecv", "# #processes = 2", rule,
                "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec"]
        for size, t in [(0, 1.9), (4, 2.0), (4194304, 352.1)]:
            out.append(f"{size:13d}{1000 if size < 65536 else 20:13d}{t * 0.97:13.2f}{t:13.2f}{t * 0.99:13.2f}"
                       f"{(2 * size / t if t else 0):13.2f}")
    out += ["", "", "# All processes entering MPI_Finalize", ""]
    return "\n".join(out)


def nvbandwidth_json():
    """nvbandwidth -j (0.8): JsonCpp's styled output (3 spaces, ' : '), cells as strings."""
    import json
    matrix = [["N/A", "392.078", "391.904"], ["392.213", "N/A", "181.402"], ["391.771", "392.021", "N/A"]]
    doc = {"nvbandwidth": {
        "CUDA Runtime Version": 12040, "Driver Version": "550.54.15", "git_version": "",
        "GPU Device list": [f"{i}: NVIDIA H100 80GB HBM3 (00000000:{i * 16 + 24:02X}:00): (dgx02)" for i in range(3)],
        "testcases": [
            {"name": "host_to_device_memcpy_ce", "status": "Passed", "sum": 166.85,
             "bandwidth_description": "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)",
             "bandwidth_matrix": [["55.6312", "55.6201", "55.6013"]]},
            {"name": "device_to_device_memcpy_read_ce", "status": "Passed", "sum": 2141.38,
             "bandwidth_description": "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)",
             "bandwidth_matrix": matrix},
            {"name": "device_to_device_latency_sm", "status": "Passed", "sum": 4860.2,
             "bandwidth_description": "Device to Device Latency SM GPU(row) <-> GPU(column) (ns)",
             "bandwidth_matrix": [["N/A", "810.1", "810.0"], ["810.3", "N/A", "809.9"], ["810.2", "810.0", "N/A"]]},
            {"name": "device_to_device_bidirectional_memcpy_ce", "status": "Waived"}],
        "version": "v0.8"}}
    return json.dumps(doc, indent=3, separators=(",", " : ")) + "\n"


def nvbandwidth_old():
    """nvbandwidth 0.4's text: no version line, rows not indented, 0.00 on the diagonal."""
    out = ["Running device_to_device_memcpy_write_ce.", "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)",
           "          0         1"]
    for i, cells in enumerate([["0.00", "276.07"], ["276.19", "0.00"]]):
        out.append(f"{i}" + "".join(f"{v:>10s}" for v in cells))
    return "\n".join(out + [""]) + "\n"


def nvbandwidth():
    out = ["nvbandwidth Version: v0.5", "Built from Git version: ", "",
           "NOTE: This tool reports current measured bandwidth on your system.",
           "Additional system-specific tuning may be required to achieve maximal peak bandwidth.", "",
           "CUDA Runtime Version: 12040", "CUDA Driver Version: 12040", "Driver Version: 550.54.15", "",
           "Device 0: NVIDIA H100 80GB HBM3", "Device 1: NVIDIA H100 80GB HBM3", "Device 2: NVIDIA H100 80GB HBM3", "",
           "Running host_to_device_memcpy_ce.", "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)",
           "           0         1         2", " 0     55.63     55.62     55.60", "",
           "SUM host_to_device_memcpy_ce 166.85", "",
           "Running device_to_device_memcpy_read_ce.", "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)",
           "           0         1         2"]
    # read_ce's title as nvbandwidth prints it ("->", testcases_ce.cpp); value(1, 2): gpu1 pulls from gpu2, slow
    matrix = [["N/A", "392.08", "391.90"], ["392.21", "N/A", "181.40"], ["391.77", "392.02", "N/A"]]
    out += [f" {i}" + "".join(f"{v:>10s}" for v in cells) for i, cells in enumerate(matrix)]
    out += ["", "SUM device_to_device_memcpy_read_ce 2141.38", ""]
    return "\n".join(out) + "\n"


PERFTEST_RULE = "-" * 87


def perftest_settings(title):
    return [PERFTEST_RULE, f"                    {title}", " Dual-port       : OFF\t\tDevice         : mlx5_0",
            " Number of qps   : 1\t\tTransport type : IB", " Connection type : RC\t\tUsing SRQ      : OFF",
            " TX depth        : 128", " Mtu             : 4096[B]", " Link type       : IB", " Max inline data : 0[B]",
            " rdma_cm QPs\t : OFF", " Data ex. method : Ethernet", PERFTEST_RULE,
            " local address: LID 0x1f9 QPN 0x0180 PSN 0xbee21d RKey 0x006dc5 VAddr 0x007f5bd95e2000",
            " remote address: LID 0x1f7 QPN 0x5864 PSN 0x7a35c6 RKey 0x00624f VAddr 0x007f746bc41000", PERFTEST_RULE]


def perftest_bw():
    out = perftest_settings("RDMA_Write BW Test") + [" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"]
    for size, mps in [(2, 2.036842), (65536, 0.180), (1048576, 0.02300)]:  # 1 MiB: 24.1 GB/s (NDR200: 25)
        mib = size * mps * 1e6 / 2 ** 20
        out.append(f" {size:<10d} {5000:<16d} {mib * 1.001:<18.2f} {mib:<18.2f}\t   {mps:.6f}")
        if size == 2:
            out.append(" Conflicting CPU frequency values detected: 1496.133000 != 1529.788000. CPU Frequency is not max.")
    return "\n".join(out + [PERFTEST_RULE]) + "\n"


def perftest_json(test, results):
    """perftest --out_json: its dprintf()s, key by key (the last size it measured)."""
    info = (f'"test_info": {{\n"test": "{test}",\n"Dual_port": "OFF",\n"Device": "mlx5_0",\n"Number_of_qps": 1,\n'
            f'"Transport_type": "IB",\n"Connection_type": "RC",\n"Using_SRQ": "OFF",\n"PCIe_relax_order": "ON",\n'
            f'"ibv_wr_API": "ON",\n"TX_depth": 128,\n"Mtu": 4096,\n"Link_type": "IB",\n"Max_inline_data": 0,\n'
            f'"rdma_cm_QPs": "OFF",\n"Use_ROCm_memory": "OFF",\n"Use_MUSA_memory": "OFF",\n"Data_ex_method": "Ethernet"'
            f'\n}},\n')
    return "{\n" + info + '"results": {\n' + results + "\n}\n}\n"


def p2p_bandwidth_latency():
    """The CUDA sample p2pBandwidthLatencyTest on 3 GPUs: its printf()s; GPUs 1 and 2 cannot reach
    each other as peers, so their 'P2P=Enabled' copies go through the host."""
    n, access = 3, {(1, 2): 0, (2, 1): 0}
    out = ["[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]"]
    out += [f"Device: {i}, NVIDIA H100 80GB HBM3, pciBusID: {i * 16 + 24:x}, pciDeviceID: 0, pciDomainID:0"
            for i in range(n)]
    out += [f"Device={i} {'CANNOT' if access.get((i, j), 1) == 0 else 'CAN'} Access Peer Device={j}"
            for i in range(n) for j in range(n) if i != j]
    out += ["", "***NOTE: In case a device doesn't have P2P access to other one, it falls back to normal memcopy "
                "procedure.", "So you can see lesser Bandwidth (GB/s) and unstable Latency (us) in those cases.", ""]
    out += ["P2P Connectivity Matrix", "     D\\D" + "".join(f"{j:6d}" for j in range(n))]
    out += [f"{i:6d}\t" + "".join(f"{access.get((i, j), 1):6d}" for j in range(n)) for i in range(n)]

    def matrix(title, local, peer, slow=None, clock="D\\D"):
        lines = [title] if title else []
        lines.append(f"   {clock}" + "".join(f"{j:6d} " for j in range(n)))
        for i in range(n):
            cells = [local if i == j else (slow if slow and access.get((i, j), 1) == 0 else peer) for j in range(n)]
            lines.append(f"{i:6d} " + "".join(f"{c:6.02f} " for c in cells))
        return lines
    out += matrix("Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)", 1630.1, 38.6)
    out += matrix("Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)", 1628.4, 389.9, slow=38.5)
    out += matrix("Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)", 1650.2, 54.1)
    out += matrix("Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)", 1655.0, 760.3, slow=54.0)
    out += matrix("P2P=Disabled Latency Matrix (us)", 2.07, 14.3, clock="GPU") + [""] + \
        matrix(None, 2.41, 6.19, clock="CPU")
    out += matrix("P2P=Enabled Latency (P2P Writes) Matrix (us)", 2.07, 2.35, slow=14.2, clock="GPU") + [""] + \
        matrix(None, 2.40, 2.11, slow=6.2, clock="CPU")
    out += ["", "NOTE: The CUDA Samples are not meant for performance measurements. Results may vary when GPU Boost "
                "is enabled."]
    return "\n".join(out) + "\n"


def perftest_lat():
    out = perftest_settings("RDMA_Write Latency Test") + [
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   "
        "99% percentile[usec]   99.9% percentile[usec] "]
    for size, t in [(2, 1.02), (4096, 2.31)]:
        out.append(f" {size:<7d} {1000:<10d} {t * 0.95:<14.2f} {t * 3:<12.2f} {t:<16.2f} {t * 1.02:<14.2f} {0.05:<15.2f} "
                   f"{t * 1.3:<22.2f} {t * 2.5:.2f}")
    return "\n".join(out + [PERFTEST_RULE]) + "\n"


def main():
    eight = [("dgx01", d) for d in range(8)]
    healthy = [(8, 35.2, 34.9, 0), (1048576, 40.1, 39.8, 0), (134217728, 700.0, 702.0, 0)]  # 128 MiB: busbw 335.5
    (HERE / "all_reduce_perf.txt").write_text(nccl(eight, healthy))
    (HERE / "all_reduce_perf-slow.txt").write_text(nccl(eight, [(8, 35.2, 34.9, 0), (134217728, 900.0, 905.0, 0)]))
    (HERE / "all_reduce_perf-mpirun.txt").write_text(nccl(eight, healthy, prefix="[1,0]<stdout>:", nccl_info=True))
    (HERE / "all_reduce_perf-1gpu.txt").write_text(nccl([("dgx01", 0)], [(8, 5.0, 5.0, "N/A"), (1048576, 6.0, 6.0, "N/A")],
                                                        version=None))
    text = nccl(eight, healthy)
    (HERE / "all_reduce_perf-cut.txt").write_text(text[: text.index("134217728  ") + 40])
    (HERE / "nccl-unnamed.txt").write_text(text)
    (HERE / "osu_latency.txt").write_text("# OSU MPI Latency Test v7.3\n# Size          Latency (us)\n" + "".join(
        f"{s:<20d}{t:12.2f}\n" for s, t in [(0, 1.62), (8, 1.70), (64, 1.85), (1024, 2.9), (4194304, 350.3)]))
    (HERE / "osu_bw.txt").write_text("# OSU MPI Bandwidth Test v5.3\n# Size      Bandwidth (MB/s)\n" + "".join(
        f"{s:<10d}{b:20.2f}\n" for s, b in [(1, 2.45), (1024, 1950.3), (4194304, 11250.8)]))
    (HERE / "osu_allreduce.txt").write_text("# OSU MPI Allreduce Latency Test v7.3\n# Datatype: MPI_FLOAT.\n"
                                            "# Size       Avg Latency(us)\n" + "".join(
        f"{s:<13d}{t:15.2f}\n" for s, t in [(4, 1.9), (1048576, 410.2), (16777216, 6012.7)]))
    (HERE / "IMB-MPI1.txt").write_text(imb())
    (HERE / "nvbandwidth.txt").write_text(nvbandwidth())
    (HERE / "ib_write_bw.txt").write_text(perftest_bw())
    (HERE / "ib_write_lat.txt").write_text(perftest_lat())
    (HERE / "not-a-tool.txt").write_text("hello\nworld\n")
    # the variants: nccl-tests 2.17's header and -I 1 columns under a name that says nothing, its -J
    # JSON whole and cut, a Markdown paste, IMB's Sendrecv, nvbandwidth's JSON and 0.4 text,
    # perftest's JSON and -b, OSU's xccl, p2pBandwidthLatencyTest
    (HERE / "nccl-2.17-per-iteration.log").write_text(nccl(eight, healthy, version="2.17.6", program="all_gather_perf",
                                                           per_iter=True))
    whole = nccl_json(eight, healthy)
    (HERE / "all_reduce.json").write_text(whole + "\n")
    (HERE / "all_reduce-cut.json").write_text(whole[: whole.index('{"size":134217728') + 60])
    (HERE / "all_reduce_perf-markdown.md").write_text("Our run last night:\n\n```text\n" + "".join(
        "    " + line + "\n" for line in nccl(eight, healthy).splitlines()) + "```\n")
    (HERE / "IMB-MPI1-sendrecv.txt").write_text(imb(sendrecv=True))
    (HERE / "nvbandwidth.json").write_text(nvbandwidth_json())
    (HERE / "nvbandwidth-0.4.txt").write_text(nvbandwidth_old())
    (HERE / "ib_write_bw.json").write_text(perftest_json("RDMA_Write_BW_Test", '"MsgSize": 1048576,\n'
                                           '"n_iterations": 5000,\n"BW_peak": 22956.03,\n"BW_average": 22933.20,\n'
                                           '"MsgRate": 0.022933\n'))
    (HERE / "ib_send_lat.json").write_text(perftest_json("Send_Latency_Test", '"MsgSize": 2,\n"n_iterations": 1000,\n'
                                           '"t_min": 0.98,\n"t_max": 3.11,\n"t_typical": 1.01,\n"t_avg": 1.03,\n'
                                           '"t_stdev": 0.05,\n"percentile_99": 1.32,\n"percentile_99.9": 2.51\n'))
    (HERE / "ib_write_bw-bidir.txt").write_text(perftest_bw().replace("RDMA_Write BW Test",
                                                                       "RDMA_Write Bidirectional BW Test"))
    (HERE / "osu_xccl_allreduce.txt").write_text("# OSU NCCL Allreduce Latency Test v7.4\n# Datatype: float.\n"
                                                 "# Size       Avg Latency(us)\n" + "".join(
        f"{s:<13d}{t:15.2f}\n" for s, t in [(4, 15.9), (1048576, 38.2), (134217728, 760.5)]))
    (HERE / "p2pBandwidthLatencyTest.txt").write_text(p2p_bandwidth_latency())
    # saved on Windows and through srun -l: CRLF, tabs between the columns, srun's "0: " prefix
    with (HERE / "osu_latency-srun-crlf-tabs.txt").open("w", newline="") as out:
        out.write("0: # OSU MPI Latency Test v7.3\r\n0: # Size\tLatency (us)\r\n" + "".join(
            f"0: {s}\t{t:.2f}\r\n" for s, t in [(0, 1.62), (8, 1.70), (64, 1.85), (1024, 2.9), (4194304, 350.3)]))
    (HERE / "IMB-MPI1-collectives.txt").write_text(imb(collectives=("Allgather", "Alltoall", "Bcast")))
    for tool, title in (("ib_read_bw", "RDMA_Read BW Test"), ("ib_send_bw", "Send BW Test")):
        (HERE / f"{tool}.txt").write_text(perftest_bw().replace("RDMA_Write BW Test", title))
    for tool, title in (("ib_read_lat", "RDMA_Read Latency Test"), ("ib_send_lat", "Send Latency Test")):
        (HERE / f"{tool}.txt").write_text(perftest_lat().replace("RDMA_Write Latency Test", title))
    (HERE / "osu_bibw.txt").write_text("# OSU MPI Bi-Directional Bandwidth Test v7.3\n# Size      Bandwidth (MB/s)\n" + "".join(
        f"{s:<10d}{b:20.2f}\n" for s, b in [(1, 3.9), (1024, 3610.5), (4194304, 22310.4)]))
    (HERE / "IMB-MPI1-4.1.txt").write_text(imb().replace("Intel(R) MPI Benchmarks 2021.7", "Intel (R) MPI Benchmarks 4.1"))
    (HERE / "osu_bw-bad.txt").write_text("# OSU MPI Bandwidth Test v5.3\n# Size      Bandwidth (MB/s)\n1 2.45\nsegfault here\n")


if __name__ == "__main__":
    main()
