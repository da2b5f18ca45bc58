"""Eval past one machine: problems spread over a Ray cluster (the engine verl already uses), each problem
a task that holds one unit of the `supercoder_timing` resource, so each node prepares, verifies and times
one problem at a time and timing never shares a node. Start each node with
`ray start ... --resources='{"supercoder_timing": 1}'`; `--ray local` starts a small local instance.
Every node needs gcc, hyperfine and this checkout at the same path (paths in the options, such as
--candidates, must exist there too). Results come back to the machine that runs `supercoder eval`,
which keeps them in its state folder, so an interrupted run goes on where it stopped.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from ..options import InputError
from .metrics import Sample
from .problems import Problem

TIMING_RESOURCE = "supercoder_timing"


def connect(address: str):
    try:
        import ray
    except ImportError:
        raise InputError("--ray needs Ray: pip install 'supercoder-lsp[train]' (or ray==2.60.0)") from None
    if address == "local":  # capped: two CPUs, one timing slot, a small object store
        ray.init(
            num_cpus=2,
            resources={TIMING_RESOURCE: 1},
            include_dashboard=False,
            log_to_driver=False,
            object_store_memory=100 << 20,
        )
    else:
        ray.init(address=address, log_to_driver=False)
    slots = sum(n.get("Resources", {}).get(TIMING_RESOURCE, 0) for n in ray.nodes() if n.get("Alive"))
    if not slots:
        ray.shutdown()
        raise InputError(
            f"no node of the Ray cluster at {address} offers the '{TIMING_RESOURCE}' resource: start each node "
            f"with ray start ... --resources='{{\"{TIMING_RESOURCE}\": 1}}'"
        )
    return ray


def spread(ev, problems: list[Problem], address: str, worker: Callable) -> dict[str, list[Sample]]:
    """Every problem's samples: the ones already in the state folder, the rest from the cluster, where
    `worker(opts, problem, baseline, timing)` gives (samples as dicts, notes) on a node."""
    out: dict[str, list[Sample]] = {}
    todo = []
    for p in problems:
        f = ev.problem_file(p)
        if f.is_file():
            out[p.id] = [Sample(**d) for d in json.loads(f.read_text())]
        else:
            todo.append(p)
    if not todo:
        return {p.id: out[p.id] for p in problems}
    ray = connect(address)
    try:
        task = ray.remote(worker).options(resources={TIMING_RESOURCE: 1}, num_cpus=1)
        pending = {task.remote(ev.opts, p, ev.baseline, ev.timing): p for p in todo}
        done = len(problems) - len(todo)
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            p = pending.pop(ready[0])
            samples, notes = ray.get(ready[0])
            ev.keep(p, samples)
            ev.notes += notes
            out[p.id] = [Sample(**d) for d in samples]
            done += 1
            ev.progress(p.id, done, len(problems))
    finally:
        ray.shutdown()
    return {p.id: out[p.id] for p in problems}
