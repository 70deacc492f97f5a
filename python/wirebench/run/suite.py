"""A suite file (suites/NAME.yaml): its steps, checked before anything runs, which of them run
where, the virtual cluster it asks for and the expectations it gives the report."""
import os
from pathlib import Path

import yaml
from wirebench.report.profiles import load_profile
from wirebench.contracts.input_files import InputError, read_utf8

from .paths import BIN, SUITES

class SuiteError(Exception):
    pass


def load_suite(name):
    path = Path(name) if name.endswith((".yaml", ".yml")) else SUITES / f"{name}.yaml"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in SUITES.glob("*.yaml")))
        raise SuiteError(f"{path}: no such suite (known: {known})")
    try:
        suite = yaml.safe_load(read_utf8(path))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise SuiteError(f"{path}:{mark.line + 1 if mark else 0}: not valid YAML: {error}") from None
    if not isinstance(suite, dict) or not isinstance(suite.get("steps"), list) or not suite["steps"]:
        raise SuiteError(f"{path}: a suite needs a list of steps")
    for number, step in enumerate(suite["steps"], start=1):
        if not isinstance(step, dict) or "binary" not in step or "name" not in step:
            raise SuiteError(f"{path}: step {number} needs a name and a binary")
        if step.get("where", "local") not in ("local", "cluster", "always"):
            raise SuiteError(f"{path}: step {number}: where: must be local, cluster or always")
        ranks = step.get("ranks", 1)
        if not (ranks in ("gpus", "nodes") or isinstance(ranks, int) and ranks >= 1):
            raise SuiteError(f"{path}: step {number}: ranks: must be a whole number >= 1, 'gpus' or 'nodes'")
        if step.get("on_every_node", False) not in (True, False):
            raise SuiteError(f"{path}: step {number}: on_every_node: must be true or false")
        if step.get("on_every_node") and ranks != 1:
            raise SuiteError(f"{path}: step {number}: on_every_node is for one-process steps (ranks: 1)")
        min_nodes = step.get("min_nodes", 1)
        if not (isinstance(min_nodes, int) and not isinstance(min_nodes, bool) and min_nodes >= 1):
            raise SuiteError(f"{path}: step {number}: min_nodes: must be a whole number >= 1")
        env = step.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, (str, int, float))
                                                for k, v in env.items()):
            raise SuiteError(f"{path}: step {number}: env: must map variable names to values")
        if not all(isinstance(a, (str, int, float)) for a in step.get("args", [])):
            raise SuiteError(f"{path}: step {number}: args: must be a list of words")
        if not (BIN / step["binary"]).exists():
            raise SuiteError(f"{path}: step {number}: {BIN / step['binary']} does not exist (build first)")
    for key in ("cluster", "cluster_if_root_without_gpu"):
        cluster = suite.get(key) or {}
        rails = cluster.get("rails", 1)
        if not (isinstance(rails, int) and not isinstance(rails, bool) and 1 <= rails <= 8):
            raise SuiteError(f"{path}: {key}: rails: must be a whole number from 1 to 8 (NICs per node, one rank each)")
        if rails > 1 and cluster.get("ranks", rails) != rails:
            raise SuiteError(f"{path}: {key}: rails: {rails} runs one rank per NIC: ranks is {rails} (or left out)")
    rates = cluster_rates(suite.get("cluster") or suite.get("cluster_if_root_without_gpu") or {})
    if len(rates) > 1 and any(e.get("from_cluster_rate") for e in suite.get("expectations", []) or []):
        raise SuiteError(f"{path}: from_cluster_rate needs one cluster rate, not {len(rates)}")
    return path, suite


def list_suites_and_profiles():
    from wirebench.report.profiles import PROFILES
    print(f"suites ({SUITES}):")
    for path in sorted(SUITES.glob("*.yaml")):
        try:
            suite = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError:
            suite = {"description": "(not valid YAML)"}
        print(f"  {path.stem:<14} {suite.get('description', '') if isinstance(suite, dict) else ''}")
    print(f"platform profiles ({PROFILES}), for --profile:")
    for path in sorted(PROFILES.glob("*.yaml")):
        try:
            profile = load_profile(str(path))
            print(f"  {profile.name:<14} {profile.description} ({len(profile.floors)} floors)")
        except InputError as error:
            print(f"  {path.stem:<14} (unreadable: {error})")
    return 0


def ranks_per_node(cluster):
    """A virtual cluster's ranks on each node: its rails (one rank per NIC), else its ranks."""
    rails = int(cluster.get("rails", 1))
    return rails if rails > 1 else int(cluster.get("ranks", 1))


def cluster_rates(cluster):
    """A cluster's link rates in Mbit/s: one, or a list (the same steps on each wiring in turn)."""
    rate = cluster.get("rate_mbit", 1000)
    return [int(r) for r in rate] if isinstance(rate, list) else [int(rate)]


def with_rate(step, rate):
    """The step with {rate_mbit} in its arguments replaced by the wiring it runs on."""
    return dict(step, args=[str(a).replace("{rate_mbit}", str(rate)) for a in step.get("args", [])])


def chosen_cluster(suite):
    """The virtual cluster this run brings up: the suite's `cluster` always; its
    `cluster_if_root_without_gpu` when run as root where no GPU is visible (so the network
    benchmarks get links with a real ceiling); none otherwise."""
    if suite.get("cluster"):
        return suite["cluster"]
    fallback = suite.get("cluster_if_root_without_gpu")
    if fallback and os.geteuid() == 0 and not Path("/dev/nvidia0").exists():
        return fallback
    return None


def selected_steps(suite, cluster):
    """A step with `where: cluster` runs only on a virtual cluster, `where: local` only without one,
    `where: always` in both cases (locally); without `where` a step runs on the cluster of a
    cluster suite, locally otherwise. (Not `on:`: YAML 1.1 reads that key as true.)"""
    chosen = []
    for step in suite["steps"]:
        where = step.get("where", "cluster" if suite.get("cluster") else "local")
        if where == "cluster" and cluster or where == "local" and not cluster or where == "always":
            chosen.append(dict(step, where=where))
    return chosen


def expectations(suite, cluster_rate_mbit):
    out = []
    for item in suite.get("expectations", []) or []:
        entry = dict(item)
        if entry.pop("from_cluster_rate", False):
            entry["ceiling_GBps"] = cluster_rate_mbit / 8000.0
            entry["reason"] = f"the virtual cluster's links are shaped to {cluster_rate_mbit} Mbit/s"
            rails = int((chosen_cluster(suite) or {}).get("rails", 1))
            if rails > 1:  # a NIC per rail, a rank on each: pairs at once share no port
                entry["ports_per_node"] = rails
        out.append(entry)
    return out
