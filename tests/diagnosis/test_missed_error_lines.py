"""Error lines the reader missed (issue 55: every log with an error line gives at least one finding
quoting it, with what its class means): NCCL's text pasted without its prefix, lines in Markdown's
emphasis, PyTorch's Gloo backend, the loader's missing or mismatched libnccl, a systemd service that
failed. Each line is as the public thread named beside it posted it (its host prefix and `NCCL` off
where the test says so)."""
from diagnosis_helpers import found, ids, parse
from wirebench.diagnosis import errors


def quoting(findings, words):
    hits = [f for f in findings if words in f.what]
    assert hits, [f.what for f in findings]
    return hits[0]


def test_nccls_text_without_its_prefix_and_without_nccl_is_nccls():
    """NVIDIA/nccl#1405's completion error and its chain (`kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL
    WARN NET/IB : Got completion from peer ...`, `... NCCL INFO transport/net.cc:1302 -> 6`), pasted as the issue's
    held-back cases had NCCL's lines: the level word first, no `host:pid:tid [dev]`, no `NCCL`."""
    text = ("WARN NET/IB : Got completion from peer 10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 "
            "(Recv) localGid fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f\n"
            "INFO transport/net.cc:1302 -> 6\n"
            "INFO proxy.cc:698 -> 6\n")
    log = parse(text, "job.log")
    assert [(m.line, m.warn) for m in log.messages] == [(1, True), (2, False), (3, False)]
    said = found(text)
    assert ids(said) == ["ib-completion-error:FAIL@1"], ids(said)
    assert '"WARN NET/IB : Got completion from peer 10.216.210.236<54862> with status=12' in said[0].what
    assert "ncclRemoteError" in said[0].why  # the bare chain's code 6 after the bare WARN


def test_a_bare_info_line_of_nccls_subsystems_is_read_and_another_tools_warn_is_not():
    """NVIDIA/nccl#367's `NET/Socket : Using [0]eth0:172.17.0.2<0>` without its prefix is NCCL's INFO line;
    another tool's `WARN:` and vLLM's own `INFO 01-19 03:55:24 ...` lines (vllm-project/vllm#12189) are not."""
    log = parse("INFO NET/Socket : Using [0]eth0:172.17.0.2<0>\nINFO Bootstrap : Using [0]eth0:172.17.0.2<0>\n", "x")
    assert [(m.warn, m.text) for m in log.messages] == [(False, "NET/Socket : Using [0]eth0:172.17.0.2<0>"),
                                                        (False, "Bootstrap : Using [0]eth0:172.17.0.2<0>")]
    other = parse("WARN: the config file has no [train] section\n"
                  "INFO 01-19 03:55:24 multiproc_worker_utils.py:218] Worker ready; awaiting tasks\n"
                  "WARN something else entirely\n", "x")
    assert other.messages == []


def test_an_error_in_markdowns_emphasis_is_read_without_it_and_quoted_with_it():
    """CodeDialect/gensyn-script's README quotes its error as `> **RuntimeError: DHTNode bootstrap failed: ...**`:
    read as the exception it is (what the catalogue's signatures are searched in has no `**`), quoted as posted."""
    line = ("> **RuntimeError: DHTNode bootstrap failed: none of the initial_peers responded to the ping. "
            "(set ensure_bootstrap_success=False to ignore)**")
    [error] = errors.find(parse(f"Full error:\n{line}\n", "README.md"))
    assert error.line == 2 and error.said.startswith("RuntimeError: DHTNode bootstrap failed")
    assert error.said.endswith("ignore)") and error.quote == line[2:]
    # Open MPI's own asterisks are its words, read as they are (a crash)
    [crash] = errors.find(parse("[n316:21583] *** Process received signal ***\n", "x"))
    assert crash.kind == "crash"


def test_gloos_enforce_is_a_gloo_error_not_an_unread_line():
    """NVIDIA/Megatron-LM#436 (plegresl: GLOO_SOCKET_IFNAME names an interface Gloo cannot find), as posted
    at its traceback's end; pytorch/gloo#399's address-family enforce with its location turned into a
    Markdown link by GitHub; horovod/horovod#1341's C++ terminate and its what()."""
    said = found("Traceback (most recent call last):\n  File \"/workspace/test.py\", line 5, in <module>\n"
                 "    dist.init_process_group(backend='gloo')\n"
                 "RuntimeError: [enforce fail at /root/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:83] "
                 "ifa != nullptr. Unable to find address for: bond1\n")
    f = quoting(said, "Unable to find address for: bond1")
    assert (f.verdict, f.line) == ("FAIL", 4) and f.why.startswith("Gloo error: PyTorch's Gloo backend failed, not NCCL")
    assert "GLOO_SOCKET_IFNAME" in f.fix
    said = found("RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/[device.cc:276]"
                 "(http://device.cc:276/)] ss1.ss_family == ss2.ss_family. 2 vs 10\n")
    f = quoting(said, "ss1.ss_family == ss2.ss_family. 2 vs 10")  # address-family-mismatch's line (test_ranks_disagree)
    assert f.verdict == "FAIL" and "(Gloo error: PyTorch's Gloo backend failed, not NCCL" in f.why, (f.id, f.why)
    said = found(">>> hvd.init()\nterminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
                 "  what():  [enforce fail at /tmp/pip-install-3dvzdqhs/horovod/third_party/gloo/gloo/transport/tcp/"
                 "device.cc:88] ifa != nullptr. Unable to find address for: eth0\nAborted\n")
    assert [f.why.split(":")[0] for f in said] == ["Gloo error"], [(f.what, f.why) for f in said]


def test_the_loaders_missing_libnccl_and_a_libnccl_of_another_version():
    """pinokiocomputer/pinokio#193: `import torch` without libnccl.so.2 (class: library not found);
    THU-MIG/yolov10#306 (pytorch/pytorch#119932: another package's older libnccl loaded first, colesbury): a
    symbol of NCCL's missing (class: library mismatch). NCCL's own INFO line of a missing net plugin
    (NVIDIA/nccl-tests#244) is no error."""
    said = found("Traceback (most recent call last):\n"
                 "  File \"/home/usr/pinokio/api/storydiffusion-comics.git/app/app.py\", line 6, in <module>\n"
                 "    import torch\n"
                 "ImportError: libnccl.so.2: cannot open shared object file: No such file or directory\n")
    f = quoting(said, "ImportError: libnccl.so.2: cannot open shared object file")
    assert (f.verdict, f.line) == ("FAIL", 4) and f.why.startswith("library not found"), f.why
    said = found("ImportError: /root/.local/conda/envs/yolov10/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so: "
                 "undefined symbol: ncclCommRegister\n")
    f = quoting(said, "undefined symbol: ncclCommRegister")
    # the catalogue's nccl-symbol-missing names it (written from GoogleCloudPlatform/scientific-computing-examples#157),
    # the class still said beside it
    assert (f.id, f.verdict) == ("nccl-symbol-missing", "FAIL")
    assert "(library mismatch: a library was built against another NCCL" in f.why and "nvidia-nccl" in f.fix
    quiet = found("ranokau:398189:398189 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open "
                  "shared object file: No such file or directory : when loading libnccl-net.so\n")
    assert quiet == [], ids(quiet)


def test_a_failed_systemd_unit_is_named_and_quoted():
    """mrzenc/vgpu4nixos#4's `systemctl status` (the unit's line, then `Active: failed (Result: exit-code)`), and
    NVIDIA/gpu-operator#356's `Job for nvidia-fabricmanager.service failed ...` (class: a service failed)."""
    said = found("warning: the following units failed: nvidia-vgpu-mgr.service\n"
                 "\u00d7 nvidia-vgpu-mgr.service - NVIDIA vGPU Manager Daemon\n"
                 "   Loaded: loaded (/etc/systemd/system/nvidia-vgpu-mgr.service; enabled; preset: ignored)\n"
                 "   Active: failed (Result: exit-code) since Thu 2025-03-20 13:55:26 UTC; 387ms ago\n"
                 "   Duration: 4ms\n")
    f = quoting(said, "Active: failed (Result: exit-code) since Thu 2025-03-20 13:55:26 UTC")
    assert (f.verdict, f.line) == ("FAIL", 4) and "on nvidia-vgpu-mgr.service" in f.what
    assert "\u00d7 nvidia-vgpu-mgr.service - NVIDIA vGPU Manager Daemon / Active: failed" in f.what
    assert f.why.startswith("a service failed") and "journalctl -u UNIT" in f.fix
    said = found("[root@test-rocky8-kvm63 ~]#  systemctl start nvidia-fabricmanager\n"
                 "Job for nvidia-fabricmanager.service failed because the control process exited with error code.\n"
                 "See \"systemctl status nvidia-fabricmanager.service\" and \"journalctl -xe\" for details.\n")
    f = quoting(said, "Job for nvidia-fabricmanager.service failed")
    assert (f.verdict, f.line) == ("FAIL", 2) and "on nvidia-fabricmanager.service" in f.what
    assert f.why.startswith("a service failed")
