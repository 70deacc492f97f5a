"""A run's judged items reach Prometheus as users wire it: Debian's prometheus-pushgateway and
prometheus started here on loopback ports chosen free, `wirebench report --pushgateway` pushes, the
Prometheus server scrapes the gateway, and a query through its HTTP API returns the pushed figure
with its labels. Both servers are stopped and their files removed after (ctest label: unit)."""
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded-runs" / "vcluster-clean"


def free_ports(count):
    """`count` distinct loopback ports free now: each held until all are chosen (a port chosen and closed may be the
    kernel's next answer, and two servers on one port make one of them fail to start)."""
    held = [socket.socket() for _ in range(count)]
    try:
        for s in held:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in held]
    finally:
        for s in held:
            s.close()


LOOPBACK = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy between us and 127.0.0.1


def get(url, timeout=5):
    with LOOPBACK.open(url, timeout=timeout) as answer:  # an answer other than 2xx raises (an OSError)
        return answer.read().decode()


def wait_until(what, check, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            found = check()
            if found:
                return found
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"{what} did not happen within {seconds} s")


@pytest.fixture
def servers(tmp_path):
    gateway_binary, prometheus_binary = shutil.which("prometheus-pushgateway"), shutil.which("prometheus")
    if not (gateway_binary and prometheus_binary and os.environ.get("WB_BIN_DIR")):
        pytest.skip("needs prometheus and prometheus-pushgateway (ci/setup installs them) and WB_BIN_DIR (ctest)")
    work = tmp_path / "prometheus"
    work.mkdir()
    gateway_port, prometheus_port = free_ports(2)
    (work / "prometheus.yml").write_text(
        "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: pushgateway\n    honor_labels: true\n"
        f"    static_configs:\n      - targets: ['127.0.0.1:{gateway_port}']\n")
    logs = [open(work / "gateway.log", "w"), open(work / "prometheus.log", "w")]
    started = [subprocess.Popen([gateway_binary, f"--web.listen-address=127.0.0.1:{gateway_port}"], stdout=logs[0],
                                stderr=subprocess.STDOUT),
               subprocess.Popen([prometheus_binary, f"--config.file={work / 'prometheus.yml'}",
                                 f"--storage.tsdb.path={work / 'data'}",
                                 f"--web.listen-address=127.0.0.1:{prometheus_port}"], stdout=logs[1],
                                stderr=subprocess.STDOUT)]
    try:
        for port in (gateway_port, prometheus_port):
            wait_until(f"the server on port {port} ready", lambda: get(f"http://127.0.0.1:{port}/-/ready") is not None)
        yield f"http://127.0.0.1:{gateway_port}", f"http://127.0.0.1:{prometheus_port}"
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for log in logs:
            log.close()
        shutil.rmtree(work)


def test_a_pushed_run_is_queried_back_from_prometheus_with_its_labels(servers, tmp_path):
    gateway, prometheus = servers
    run = tmp_path / "run"
    shutil.copytree(RECORDED, run, ignore=shutil.ignore_patterns("golden"))
    result = subprocess.run([str(Path(os.environ["WB_BIN_DIR"]) / "wirebench"), "report", str(run), "--pushgateway",
                             gateway], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"metrics pushed to {gateway}" in result.stdout
    pushed = next(v for v in json.loads((run / "summary.json").read_text())["verdicts"]
                  if v["src"] == "node0/rank0" and v["dst"] == "node1/rank1" and "/stream_bw/" in v["key"])
    query = ('wirebench_bandwidth_bytes_per_second{job="wirebench",case="stream_bw",src="node0/rank0",'
             'dst="node1/rank1",bytes="1048576"}')

    def answer():
        found = json.loads(get(f"{prometheus}/api/v1/query?" + urllib.parse.urlencode({"query": query})))
        return found["data"]["result"] if found["status"] == "success" else None
    series = wait_until("Prometheus scraping the pushed figure", answer)
    assert len(series) == 1
    labels, (_, value) = series[0]["metric"], series[0]["value"]
    assert float(value) == pytest.approx(pushed["value"] * 1e9, rel=1e-6)
    assert (labels["node"], labels["link_class"], labels["item"], labels["run"]) == ("node0", "eth", pushed["key"], "run")
    verdict = json.loads(get(f"{prometheus}/api/v1/query?" + urllib.parse.urlencode(
        {"query": f'wirebench_item_verdict{{item="{pushed["key"]}",verdict="PASS"}}'})))["data"]["result"]
    assert [float(s["value"][1]) for s in verdict] == [1.0]
