"""A run's judged items in Prometheus' text exposition format (wirebench report --prometheus FILE:
for node_exporter's textfile collector, written beside and renamed) and pushed to a Pushgateway
(--pushgateway URL), with prometheus_client, the library Prometheus' maintainers publish. Names and
labels follow Prometheus' conventions (base units, snake_case, _seconds, _bytes_per_second, _ratio);
docs/prometheus.md lists them."""
from prometheus_client import CollectorRegistry, Gauge, push_to_gateway, write_to_textfile

from .endpoints import node_of
from .verdict import COUNTED, items

ITEM_LABELS = ("node", "link_class", "bench", "case", "src", "dst", "bytes", "item")
VERDICTS = ("PASS", "WARN", "FAIL", "ERROR", "NOT JUDGED", "SKIP")


def registry_of(verdicts, run_time_seconds=None, exit_code=None):
    registry = CollectorRegistry()
    bandwidth = Gauge("wirebench_bandwidth_bytes_per_second", "A judged item's bandwidth (busbw for a collective, "
                      "algbw otherwise), bytes per second", ITEM_LABELS, registry=registry)
    latency = Gauge("wirebench_latency_seconds", "A judged item's latency (half a round trip for a ping-pong)",
                    ITEM_LABELS, registry=registry)
    ratio = Gauge("wirebench_ceiling_ratio", "A judged item's fraction of its link's ceiling", ITEM_LABELS,
                  registry=registry)
    state = Gauge("wirebench_item_verdict", "1 for the item's verdict, 0 for the others", ITEM_LABELS + ("verdict",),
                  registry=registry)
    counted = Gauge("wirebench_items", "The run's judged items by verdict", ("verdict",), registry=registry)
    for v in items(verdicts):
        f = v.row.fields
        labels = dict(node=node_of(f.get("src", "")) or "", link_class=f.get("link_class", ""),
                      bench=f.get("bench", ""), case=f.get("case", ""), src=f.get("src", ""), dst=f.get("dst", ""),
                      bytes=f.get("bytes", ""), item=v.row.key)
        if v.value is not None and v.metric == "time_us":
            latency.labels(**labels).set(v.value / 1e6)
        elif v.value is not None and v.metric:
            bandwidth.labels(**labels).set(v.value * 1e9)
        if v.fraction is not None:
            ratio.labels(**labels).set(v.fraction)
        for verdict in VERDICTS:
            state.labels(**labels, verdict=verdict).set(1 if v.verdict == verdict else 0)
    for verdict in COUNTED:
        counted.labels(verdict=verdict).set(sum(1 for v in items(verdicts) if v.verdict == verdict))
    if run_time_seconds is not None:
        Gauge("wirebench_run_timestamp_seconds", "When the run was measured (Unix time)",
              registry=registry).set(run_time_seconds)
    if exit_code is not None:
        Gauge("wirebench_run_exit_code", "The report's exit code: 0 healthy, 1 a FAIL, 2 an ERROR",
              registry=registry).set(int(exit_code))
    return registry


def write_textfile(path, registry):
    write_to_textfile(str(path), registry)  # beside and renamed: the collector never reads half a file


def push(url, registry, grouping_key):
    push_to_gateway(url, job="wirebench", registry=registry, grouping_key=grouping_key, timeout=30)
