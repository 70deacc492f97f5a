"""A node's ports as wirebench check reads them: sysfs's state and speed, InfiniBand's state and
rate, and a tc rate limit on the interface (tbf, or htb's default class), from a fake sysfs tree and
a fake tc that prints what iproute2 6.1 prints."""
import pytest

from wirebench.contracts.schema import ExitCode

from wirebench.slurm.node_ports import PortSpecError, judge_port, parse_port_spec, parse_rate, read_port


def test_rates_as_users_and_tc_write_them():
    assert parse_rate("400G") == 400 and parse_rate("200Gb/s") == 200 and parse_rate("1Gbit") == 1
    assert parse_rate("100mbit") == pytest.approx(0.1) and parse_rate("12500000bit") == pytest.approx(0.0125)
    for bad in ("400", "fast", "1 gbit/s/s"):
        with pytest.raises(PortSpecError):
            parse_rate(bad)
    assert parse_port_spec("mlx5_0:1=400G") == ("mlx5_0:1", 400)
    assert parse_port_spec("eth0") == ("eth0", None)
    with pytest.raises(PortSpecError, match="not IF or IF=RATE"):
        parse_port_spec("=1gbit")


def fake_tc(tmp_path, qdisc_json, classes=""):
    script = tmp_path / "tc"
    script.write_text(f"""#!/bin/sh
if [ "$1" = "-j" ]; then echo '{qdisc_json}'; else printf '%s\\n' '{classes}'; fi
""")
    script.chmod(0o755)
    return (str(script),)


def sysfs_net(tmp_path, name, state="up", speed="10000"):
    folder = tmp_path / "sys" / "class" / "net" / name
    folder.mkdir(parents=True)
    (folder / "operstate").write_text(state + "\n")
    (folder / "speed").write_text(speed + "\n")
    return tmp_path / "sys"


def test_a_tbf_limit_below_the_trained_speed_is_the_rate(tmp_path):
    sysfs = sysfs_net(tmp_path, "wbeth0")
    tc = fake_tc(tmp_path, '[{"kind":"tbf","handle":"1:","root":true,"options":{"rate":12500000}}]')
    port = read_port("wbeth0", sysfs, tc)
    assert port.up and port.rate_gbps == pytest.approx(0.1) and port.rate_from == "tc qdisc on wbeth0"
    assert judge_port(port, 1.0) == ("FAIL", "wbeth0 at 100 Mb/s, expected 1 Gb/s")
    assert judge_port(port, 0.1) == ("PASS", "wbeth0 up at 100 Mb/s")


def test_htb_s_default_class_is_read_from_its_text(tmp_path):
    sysfs = sysfs_net(tmp_path, "wbeth0")
    tc = fake_tc(tmp_path, '[{"kind":"htb","handle":"1:","root":true,"options":{"default":"0x10"}}]',
                 "class htb 1:20 root prio 0 rate 100Mbit ceil 100Mbit burst 32k\n"
                 "class htb 1:10 root prio 0 rate 1Gbit ceil 1Gbit burst 32625b cburst 1375b")
    assert read_port("wbeth0", sysfs, tc).rate_gbps == 1.0


def test_a_port_down_or_missing_fails_and_infiniband_is_read(tmp_path):
    sysfs = sysfs_net(tmp_path, "eth0", state="down", speed="-1")
    tc = fake_tc(tmp_path, "[]")
    assert judge_port(read_port("eth0", sysfs, tc), None) == ("FAIL", "eth0 is down")
    assert judge_port(read_port("eth9", sysfs, tc), None) == ("FAIL", "eth9 is missing")
    port = sysfs / "class" / "infiniband" / "mlx5_0" / "ports" / "1"
    port.mkdir(parents=True)
    (port / "state").write_text("4: ACTIVE\n")
    (port / "rate").write_text("200 Gb/sec (4X HDR)\n")
    assert judge_port(read_port("mlx5_0:1", sysfs, tc), 400) == ("FAIL", "mlx5_0:1 at 200 Gb/s, expected 400 Gb/s")
    (port / "state").write_text("1: DOWN\n")
    assert judge_port(read_port("mlx5_0", sysfs, tc), None) == ("FAIL", "mlx5_0 is DOWN")


def test_an_up_virtio_port_that_reports_no_rate_is_not_judged_not_failed(tmp_path):
    """Issue 44: a virtio eth0 says speed -1; with --nic eth0=10G it was a FAIL, and a prolog drained
    a healthy node. Up at a rate nobody reports is NOT JUDGED; a tc limit, where one is, is its rate."""
    sysfs = sysfs_net(tmp_path, "eth0", state="up", speed="-1")
    port = read_port("eth0", sysfs, fake_tc(tmp_path, "[]"))
    assert port.up and port.rate_gbps is None
    verdict, what = judge_port(port, 10)
    assert verdict == "NOT JUDGED" and "a rate its driver does not report" in what and "10 Gb/s not checked" in what
    assert judge_port(port, None) == ("PASS", "eth0 up")


def test_a_check_that_judged_nothing_is_never_healthy():
    from wirebench.slurm.check import overall
    assert overall([("NOT JUDGED", "eth0 up, rate unknown")]) == ("NOT JUDGED", "nothing judged: eth0 up, rate unknown",
                                                                  ExitCode.UNJUDGED)
    assert overall([])[:3:2] == ("NOT JUDGED", ExitCode.UNJUDGED)
    assert overall([("PASS", "lo up"), ("NOT JUDGED", "eth0 rate unknown")]) == \
        ("PASS", "healthy: lo up; not judged: eth0 rate unknown", ExitCode.OK)
    assert overall([("NOT JUDGED", "x"), ("FAIL", "eth1 is down")]) == ("FAIL", "eth1 is down", ExitCode.FAILED)


def test_a_check_exits_by_the_one_order_and_a_warn_is_judged():
    """Issue 54: a check whose only finding was a WARN (a GPUDirect-off NCCL log) exited 4, 'nothing
    judged', which drains the node; FAIL outranked ERROR where every other command ranks ERROR first;
    a profile floor the suite did not measure left the check healthy."""
    from wirebench.slurm.check import overall
    assert overall([("WARN", "NCCL gdr-off: GPUDirect RDMA is off")]) == \
        ("PASS", "healthy: WARN NCCL gdr-off: GPUDirect RDMA is off", ExitCode.OK)
    verdict, what, code = overall([("FAIL", "eth1 is down"), ("ERROR", "the suite did not finish")])
    assert (verdict, code) == ("ERROR", ExitCode.INFRASTRUCTURE) and what == "could not check: the suite did not finish (+1 more)"
    missing = ["profile h100-sxm-8gpu: floor 'GPU pair copy' not measured"]
    assert overall([("PASS", "12 measured items pass")], missing) == \
        ("NOT JUDGED", "not judged: profile h100-sxm-8gpu: floor 'GPU pair copy' not measured", ExitCode.UNJUDGED)
    assert overall([("FAIL", "eth1 is down")], missing)[2] == ExitCode.FAILED
