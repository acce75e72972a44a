#!/usr/bin/env python3
"""judgelog verify benchmark: boards checked per second, and the scaling from 1 to 2 Dask workers.

    python bench/verify_bench.py                    # facts/verify/small.yaml
    python bench/verify_bench.py --scope FILE.yaml  # another scope
    python bench/verify_bench.py --json             # the measurements as JSON on stdout

Runs the same verify job three times: in this process (the reference enumerator), on a
distributed.LocalCluster with 1 worker process and with 2 worker processes (needs judgelog[dask]).
Reports the states checked (the S of "no counterexample among S boards"), wall time, states per second
and the 2-worker speed-up over 1 worker. Wall time is what matters for a distributed run, so run it on
an otherwise idle machine; every run also checks that the three results are identical.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scope", default=None, help="a scope file (default facts/verify/small.yaml)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import yaml

    from judgelog.boards import tasks
    from judgelog.distribute import Job, run_job
    from judgelog.engine import Engine
    from judgelog.scope import load_scope
    from judgelog.verify import merge

    path = args.scope or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "facts", "verify", "small.yaml")
    with open(path, encoding="utf-8") as fh:
        raw = yaml.safe_load(fh) or {}
    engine = Engine(properties=True)
    scope = load_scope(raw, engine, source=path)
    todo = tasks(scope)
    job = Job(scope=raw, scope_source=path)
    rows = []
    results = []
    for label, kwargs in (("in-process", {"workers": 1}), ("1 worker", None), ("2 workers", None)):
        if kwargs is None:
            import distributed

            n = int(label.split()[0])
            cluster = distributed.LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
            )
            try:
                # warm the workers (engine build) before timing, as a long run would amortise it
                run_job(job, todo[:n], scheduler=cluster.scheduler_address)
                start = time.perf_counter()
                out = run_job(job, todo, scheduler=cluster.scheduler_address)
                wall = time.perf_counter() - start
            finally:
                cluster.close()
        else:
            run_job(job, todo[:1], **kwargs)
            start = time.perf_counter()
            out = run_job(job, todo, **kwargs)
            wall = time.perf_counter() - start
        merged = merge(scope, out)
        results.append(merged)
        rows.append(
            {
                "run": label,
                "tasks": len(todo),
                "states": merged["states"],
                "wall_s": round(wall, 2),
                "states_per_s": round(merged["states"] / wall, 1),
            }
        )
    same = all(r == results[0] for r in results)
    speedup = rows[1]["wall_s"] / rows[2]["wall_s"] if rows[2]["wall_s"] else 0.0
    if args.json:
        print(
            json.dumps(
                {"scope": path, "rows": rows, "speedup_2_over_1": round(speedup, 2), "identical": same}, indent=2
            )
        )
    else:
        print(f"scope {path}: {len(todo)} tasks")
        print(f"{'run':<12}{'states':>8}{'wall s':>9}{'states/s':>10}")
        for r in rows:
            print(f"{r['run']:<12}{r['states']:>8}{r['wall_s']:>9}{r['states_per_s']:>10}")
        print(f"2 workers / 1 worker speed-up: {speedup:.2f}x; identical results: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
