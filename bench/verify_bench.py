#!/usr/bin/env python3
"""judgelog verify benchmark: boards covered per second, and the scaling from 1 to 2 Dask workers.

    python bench/verify_bench.py                    # the default scope (facts/verify/default.yaml)
    python bench/verify_bench.py --scope FILE.yaml  # another scope
    python bench/verify_bench.py --reference        # also the reference enumerator (small scopes only)
    python bench/verify_bench.py --json             # the measurements as JSON on stdout

Runs the same verify job (the clingo search, one task per board shape) in this process, then on a
distributed.LocalCluster with 1 worker process and with 2 worker processes (needs judgelog[dask]).
Reports the boards covered (the S of "no counterexample among S boards"), wall time, boards per second and
the 2-worker speed-up over 1 worker. With --reference it also times the reference enumerator in this
process (states checked one by one). Wall time is what matters for a distributed run, so run it on an
otherwise idle machine; every run also checks that the results are identical.
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
    parser.add_argument("--scope", default=None, help="a scope file (default facts/verify/default.yaml)")
    parser.add_argument("--reference", action="store_true", help="also time the reference enumerator")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import yaml

    from judgelog.boards import shapes, tasks
    from judgelog.distribute import Job, run_job
    from judgelog.engine import Engine
    from judgelog.scope import default_scope_path, load_scope
    from judgelog.verify import merge

    path = args.scope or default_scope_path()
    with open(path, encoding="utf-8") as fh:
        raw = yaml.safe_load(fh) or {}
    engine = Engine(properties=True)
    scope = load_scope(raw, engine, source=path)
    todo = shapes(scope)
    job = Job(scope=raw, scope_source=path)
    runs: list[tuple[str, object, Job, list]] = [("in-process", 1, job, todo)]
    runs += [("1 worker", "cluster", job, todo), ("2 workers", "cluster", job, todo)]
    if args.reference:
        runs.append(("reference", 1, Job(scope=raw, scope_source=path, reference=True), tasks(scope)))
    rows = []
    results = []
    for label, how, this_job, work in runs:
        if how == "cluster":
            import distributed

            n = int(label.split()[0])
            cluster = distributed.LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
            )
            try:
                # warm the workers (engine build) before timing, as a long run would amortise it
                run_job(this_job, work[:n], scheduler=cluster.scheduler_address)
                start = time.perf_counter()
                out = run_job(this_job, work, scheduler=cluster.scheduler_address)
                wall = time.perf_counter() - start
            finally:
                cluster.close()
        else:
            run_job(this_job, work[:1], workers=1)
            start = time.perf_counter()
            out = run_job(this_job, work, workers=1)
            wall = time.perf_counter() - start
        merged = merge(scope, out)
        results.append((merged["boards"], merged["counterexamples"]))
        rows.append(
            {
                "run": label,
                "tasks": len(work),
                "boards": merged["boards"],
                "wall_s": round(wall, 2),
                "boards_per_s": round(merged["boards"] / wall, 1) if wall else 0.0,
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
        print(f"scope {path}")
        print(f"{'run':<12}{'tasks':>6}{'boards':>9}{'wall s':>9}{'boards/s':>11}")
        for r in rows:
            print(f"{r['run']:<12}{r['tasks']:>6}{r['boards']:>9}{r['wall_s']:>9}{r['boards_per_s']:>11}")
        print(f"2 workers / 1 worker speed-up: {speedup:.2f}x; identical results: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
