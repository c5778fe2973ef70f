#!/usr/bin/env python3
"""Summarise the cells fuse_bench measured: a table, a JSON file, a plot.

Each input is a JSON-lines file with one object per cell (bench/fuse_bench.c
prints them).  Cells are keyed by workload, writeback cache and delay; the
modes (compound, enosys, eopnotsupp, handles, handles_enosys on the patched
kernel; stock) are set
side by side.
"""
import argparse
import json
import statistics
import sys

MODES = ["stock", "compound", "enosys", "eopnotsupp", "handles", "handles_enosys"]


def percentile(values, p):
    s = sorted(values)
    if not s:
        return 0.0
    k = (len(s) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summarise(cell):
    ops = cell["ops"]
    lat = cell["latency_ns"]
    run_secs = [ns / 1e9 for ns in cell["run_ns"]]
    per_run_ops = ops / cell["runs"]
    return {
        "workload": cell["workload"],
        "what": cell["what"],
        "mode": cell["mode"],
        "delay_us": cell["delay_us"],
        "writeback_cache": cell["writeback_cache"],
        "ops": ops,
        "round_trips_per_op": cell["round_trips"] / ops,
        "server_ops_per_op": cell["server_ops"] / ops,
        "latency_us_median": statistics.median(lat) / 1e3,
        "latency_us_p10": percentile(lat, 10) / 1e3,
        "latency_us_p90": percentile(lat, 90) / 1e3,
        "ops_per_s": statistics.median(per_run_ops / s for s in run_secs if s > 0),
        "cpu_us_per_op": (cell["client_cpu_ns"] + cell["server_cpu_ns"]) / ops / 1e3,
        "client_cpu_us_per_op": cell["client_cpu_ns"] / ops / 1e3,
        "server_cpu_us_per_op": cell["server_cpu_ns"] / ops / 1e3,
        "sequence": cell["sequence"],
    }


def load(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    rows.append(summarise(json.loads(line)))
                except (ValueError, KeyError) as e:
                    sys.exit(f"{path}:{n}: not a benchmark record: {e}")
    if not rows:
        sys.exit("no benchmark records")
    return rows


def key(r):
    return (r["workload"], r["writeback_cache"], r["delay_us"])


def table(rows):
    cells = {}
    order = []
    for r in rows:
        k = key(r)
        if k not in cells:
            cells[k] = {}
            order.append(k)
        cells[k][r["mode"]] = r
    modes = [m for m in MODES if any(m in c for c in cells.values())]
    workloads = []
    for k in order:
        if k[0] not in workloads:
            workloads.append(k[0])
    order.sort(key=lambda k: (workloads.index(k[0]), k[1], k[2]))
    out = []
    head = f"{'workload':27} {'wb':3} {'delay':>6}"
    for m in modes:
        head += f" | {m:>10}: {'rt/op':>5} {'srv/op':>6} {'median us':>9} {'p10-p90 us':>13} {'ops/s':>7} {'cpu us':>6}"
    out.append(head)
    out.append("-" * len(head))
    workload = None
    for k in order:
        if k[0] != workload:
            if workload is not None:
                out.append("")
            workload = k[0]
        line = f"{k[0]:27} {'on' if k[1] else 'off':3} {k[2]:>6}"
        for m in modes:
            r = cells[k].get(m)
            if not r:
                line += f" | {'':>10}  {'':>5} {'':>6} {'':>9} {'':>13} {'':>7} {'':>6}"
                continue
            spread = f"{r['latency_us_p10']:.0f}-{r['latency_us_p90']:.0f}"
            line += (f" | {'':>10}  {r['round_trips_per_op']:5.2f} {r['server_ops_per_op']:6.2f}"
                     f" {r['latency_us_median']:9.0f} {spread:>13} {r['ops_per_s']:7.0f}"
                     f" {r['cpu_us_per_op']:6.0f}")
        out.append(line)
    out.append("")
    out.append("Requests of one operation (the last measured), delay 0:")
    seen = set()
    for r in rows:
        if r["delay_us"] != min(x["delay_us"] for x in rows):
            continue
        k = (r["workload"], r["writeback_cache"], r["mode"])
        if k in seen:
            continue
        seen.add(k)
        out.append(f"  {r['workload']:27} wb {'on ' if r['writeback_cache'] else 'off'} "
                   f"{r['mode']:10} {r['sequence']}")
    return "\n".join(out) + "\n", cells, order, modes


def plot(path, cells, order, modes):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = []
    for k in order:
        if k[0] not in workloads:
            workloads.append(k[0])
    wbs = sorted({k[1] for k in order})
    delays = sorted({k[2] for k in order})
    fig, axes = plt.subplots(len(workloads), len(wbs), squeeze=False,
                             figsize=(6 * len(wbs), 2.6 * len(workloads)))
    width = 0.8 / max(len(modes), 1)
    colours = {"stock": "#777777", "compound": "#1f77b4",
               "enosys": "#2ca02c", "eopnotsupp": "#d62728",
               "handles": "#9467bd", "handles_enosys": "#8c564b"}
    for i, w in enumerate(workloads):
        for j, wb in enumerate(wbs):
            ax = axes[i][j]
            for n, m in enumerate(modes):
                xs, ys, lo, hi = [], [], [], []
                for d_i, d in enumerate(delays):
                    r = cells.get((w, wb, d), {}).get(m)
                    if not r:
                        continue
                    xs.append(d_i + (n - (len(modes) - 1) / 2) * width)
                    ys.append(r["latency_us_median"])
                    lo.append(r["latency_us_median"] - r["latency_us_p10"])
                    hi.append(r["latency_us_p90"] - r["latency_us_median"])
                ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=m,
                       color=colours.get(m))
            ax.set_xticks(range(len(delays)))
            ax.set_xticklabels([f"{d} us" for d in delays])
            ax.set_yscale("log")
            ax.set_ylabel("latency per op (us)")
            ax.set_title(f"{w}, writeback {'on' if wb else 'off'}", fontsize=9)
            ax.grid(axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle("FUSE compounds: median latency per operation (bars: 10th-90th percentile)")
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(path, dpi=90)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("inputs", nargs="+", help="JSON-lines files of fuse_bench")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--png", help="write the latency plot here")
    ap.add_argument("--table", help="write the table here (else stdout)")
    args = ap.parse_args()

    rows = load(args.inputs)
    text, cells, order, modes = table(rows)
    if args.table:
        with open(args.table, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cells": rows}, f, indent=1)
    if args.png:
        plot(args.png, cells, order, modes)


if __name__ == "__main__":
    main()
