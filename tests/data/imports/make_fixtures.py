"""Writes this folder's fixtures: outputs in the exact formats nccl-tests and OSU print (their
printf formats; figures invented by the team, none copied). Run it to remake them."""
from pathlib import Path

HERE = Path(__file__).resolve().parent


def nccl(ranks_hosts, rows, version="2.13.9", prefix="", nccl_info=False):
    out = ["# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
           "validation: 1 graph: 0", "#"]
    if version:
        out.append(f"# nccl-tests version {version} nccl-headers=22005 nccl-library=22005")
    out.append("# Using devices")
    for r, (h, d) in enumerate(ranks_hosts):
        out.append(f"#  Rank {r:2d} Group  0 Pid {4000 + r:6d} on {h:>10s} device {d:2d} [0x{d * 16 + 7:02x}] NVIDIA H100 80GB HBM3")
    if nccl_info:
        out.append(f"{ranks_hosts[0][0]}:4000:4000 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM")
    out += ["#",
            "#                                                              out-of-place                       in-place          ",
            "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
            "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "]
    n = len(ranks_hosts)
    for size, t_out, t_in, wrong in rows:
        def cells(t):
            alg = size / t / 1e3
            return f"{t:9.2f}  {alg:6.2f}  {alg * 2 * (n - 1) / n:6.2f}  {wrong:5}"
        out.append(f"{size:12d}  {size // 4:12d}     float     sum      -1  {cells(t_out)}  {cells(t_in)}")
    out += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 123.4 ", "#"]
    return "\n".join(prefix + line for line in out) + "\n"


def imb():
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
    out += ["", "", "# All processes entering MPI_Finalize", ""]
    return "\n".join(out)


def nvbandwidth():
    out = ["nvbandwidth Version: v0.5", "Built from Git version: ", "",
           "NOTE: This tool reports current measured bandwidth on your system.",
           "Additional system-specific tuning may be required to achieve maximal peak bandwidth.", "",
           "CUDA Runtime Version: 12040", "CUDA Driver Version: 12040", "Driver Version: 550.54.15", "",
           "Device 0: NVIDIA H100 80GB HBM3", "Device 1: NVIDIA H100 80GB HBM3", "Device 2: NVIDIA H100 80GB HBM3", "",
           "Running host_to_device_memcpy_ce.", "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)",
           "           0         1         2", " 0     55.63     55.62     55.60", "",
           "SUM host_to_device_memcpy_ce 166.85", "",
           "Running device_to_device_memcpy_read_ce.", "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)",
           "           0         1         2"]
    matrix = [["N/A", "392.08", "391.90"], ["392.21", "N/A", "181.40"], ["391.77", "392.02", "N/A"]]  # gpu1 <- gpu2 slow
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
    (HERE / "osu_bw-bad.txt").write_text("# OSU MPI Bandwidth Test v5.3\n# Size      Bandwidth (MB/s)\n1 2.45\nsegfault here\n")


if __name__ == "__main__":
    main()
