"""The RoCE GID a job used, where the log shows the port's GID table (`ibv_devinfo -v`'s `GID[  1]:
fe80::ac0:ebff:feda:1cfb, RoCE v2`) and the index (NCCL_IB_GID_INDEX, or the reporter's `GID Index
to 1`): a link-local GID (fe80::) is not routed, so a queue pair to another node over it times out.
That reading explains the QP connection's timeout better than the catalogue's generic entry for it."""
import re

from .registry import rule
from .log_facts import first_setting

GID_ROW = re.compile(r"\bGID\[\s*(\d+)\]:\s*([0-9A-Fa-f:.]+),\s*RoCE\s*v?(\d)", re.I)
# the index the job used where no NCCL_IB_GID_INDEX line says it: the log's own words (`set GID Index to 1`)
INDEX_SAID = re.compile(r"\bGID[ _]?index(?: (?:to|is|of)| ?=) ?(\d+)\b", re.I)
QP_TIMEOUT = re.compile(r"ibv_modify_qp failed with (?:error |\d+ )?Connection timed out")
EXPLAINS = ("ib-qp-connect-timeout",)  # the catalogue's generic reading of the same line (suites/nccl-warnings.csv)


def gid_table(log):
    """{index: (line, gid, RoCE version)} of the GID rows the log holds (the first of each index)."""
    table = {}
    for o in log.others:
        found = GID_ROW.search(o.text)
        if found:
            table.setdefault(int(found.group(1)), (o.line, found.group(2).lower(), found.group(3)))
    return table


def index_used(log):
    """(line, index) of the GID index the job used as the log says it, or None."""
    setting = first_setting(log, "NCCL_IB_GID_INDEX", lambda v: v.isdigit())
    if setting is not None:
        return setting.line, int(setting.value)
    for o in log.others:
        found = INDEX_SAID.search(o.text)
        if found and not GID_ROW.search(o.text):
            return o.line, int(found.group(1))
    return None


@rule("roce-gid-link-local", "FAIL", "any",
      "an `ibv_modify_qp failed with error Connection timed out` and the port's GID table (`ibv_devinfo -v`) where "
      "the index used (NCCL_IB_GID_INDEX, or the log's `GID Index to N`) is a link-local `fe80::` GID",
      "the queue pairs were addressed by a link-local RoCE GID, which no router forwards: a QP to another node "
      "times out (the NICs, the rails and the cables are not at fault)",
      "set NCCL_IB_GID_INDEX to the RoCE v2 GID of the routed IP address (the IPv4-mapped `::ffff:a.b.c.d`, or the "
      "global IPv6 one), as `show_gids` lists it; NCCL 2.21 on picks one itself where NCCL_IB_GID_INDEX is unset",
      "NVIDIA/nccl#769 (sjeaugey: GID 1 is the link-local fe80:: RoCE v2 GID, not routed; the reporter: GID 3, the "
      "IPv4-mapped one, works); NCCL documentation, Environment Variables: NCCL_IB_GID_INDEX")
def roce_gid_link_local(r, c):
    timeout = next((m for m in c.log.messages if QP_TIMEOUT.search(m.text)), None)
    used, table = index_used(c.log), gid_table(c.log)
    if timeout is None or used is None or used[1] not in table:
        return None
    gid_line, gid, version = table[used[1]]
    if not gid.startswith("fe80:"):
        return None
    finding = r.finding(timeout.line, f"the QP connection timed out on GID index {used[1]} (line {used[0]}): "
                        f"{gid}, RoCE v{version} (line {gid_line}), a link-local address",
                        "a link-local (fe80::) GID is not routed: the queue pair to another node cannot be reached "
                        "over it")
    finding.explains = EXPLAINS
    return finding
