#!/usr/bin/env python3
"""Plots a benchmark's JSON (corank_merge_bench, corank_set_ops_bench or corank_sort_bench
--json FILE) as a PNG: GB/s against elements per input, one line per implementation, one
panel per operation, key type and input shape. corank_segmented_bench's JSON becomes bars of
% of copy per segment-length mix (one panel per operation and size), and
corank_streamed_bench's bars of % of the bound per operation (one panel per memory kind, key
type and size). Needs matplotlib (pip install matplotlib).

    bench/plot.py bench/results/h100-merge.json bench/results/h100-merge.png
"""

import argparse
import json
import math
import os
import sys
from collections import defaultdict

# One style per implementation, the same in every plot; the baselines are dashed.
STYLES = {
    "copy": dict(color="black", linestyle=":", marker=""),
    "cub": dict(color="tab:red", linestyle="--", marker="s"),
    "thrust": dict(color="tab:orange", linestyle="--", marker="^"),
    "naive": dict(color="tab:olive", linestyle="-", marker="x"),
    "tiled": dict(color="tab:cyan", linestyle="-", marker="+"),
    "circular": dict(color="tab:purple", linestyle="-", marker="d"),
    "partitioned": dict(color="tab:blue", linestyle="-", marker="o"),
    "convenience": dict(color="tab:pink", linestyle="-", marker="p"),
    "sequential": dict(color="tab:brown", linestyle="-.", marker="v"),
    "cpu": dict(color="tab:green", linestyle="-.", marker="*"),
}


def panel_key(row):
    """The panel a result belongs to: (operation, input shape, type). Merge rows have no op,
    set-operation rows name their shape "overlap", and older merge runs have no shape."""
    return (row.get("op", "merge"), row.get("overlap", row.get("shape", "")), row["type"])


def size_label(log2):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if log2 >= shift:
            return f"{2 ** (log2 - shift)}{unit}"
    return str(2**log2)


def plot(data, out_path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = defaultdict(lambda: defaultdict(list))
    for row in data["results"]:
        if row.get("check", "").startswith("FAIL") or row["median_ms"] <= 0:
            continue
        if "log2_elements_per_input" not in row:  # corank_sort_bench's k-way rows, by k: tables only
            continue
        panels[panel_key(row)][row["impl"]].append((row["log2_elements_per_input"], row["gbps"]))
    if not panels:
        sys.exit("plot.py: no results to plot in the JSON")

    keys = sorted(panels)
    ops = sorted({k[0] for k in keys}, key=[k[0] for k in keys].index)
    rows_of = sorted({k[1:] for k in keys}, key=[k[1:] for k in keys].index)
    columns = len(ops) if len(ops) > 1 else min(3, len(rows_of))
    rows = math.ceil(len(keys) / columns)
    width = max(4.6 * columns, 9.0)
    figure, axes = plt.subplots(rows, columns, figsize=(width, 3.4 * rows + (1.6 if rows == 1 else 0)), squeeze=False)
    for axis in axes.flat:
        axis.set_visible(False)
    for index, key in enumerate(keys):
        op, overlap, type_name = key
        if len(ops) > 1:
            axis = axes[rows_of.index(key[1:])][ops.index(op)]
        else:
            axis = axes.flat[index]
        axis.set_visible(True)
        logs = set()
        for impl, points in panels[key].items():
            points.sort()
            logs.update(p[0] for p in points)
            style = STYLES.get(impl, dict(linestyle="-", marker="."))
            axis.plot([p[0] for p in points], [p[1] for p in points], label=impl, markersize=4, **style)
        ticks = sorted(logs)
        step = max(1, math.ceil(len(ticks) / 7))
        axis.set_xticks(ticks[::step], [size_label(t) for t in ticks[::step]])
        axis.set_yscale("log")
        axis.grid(True, which="both", alpha=0.3)
        axis.set_title(" ".join(p for p in (op, overlap, type_name) if p), fontsize=10)
        axis.set_xlabel("elements per input", fontsize=8)
        axis.set_ylabel("GB/s (read + written)", fontsize=8)
        axis.tick_params(labelsize=7)
    handles, labels = {}, {}
    for axis in axes.flat:
        for h, l in zip(*axis.get_legend_handles_labels()):
            handles.setdefault(l, h)
    order = [name for name in STYLES if name in handles] + [name for name in handles if name not in STYLES]
    columns_of_legend = min(len(order), max(3, int(width / 1.4)))
    legend_rows = math.ceil(len(order) / columns_of_legend)
    figure.legend([handles[n] for n in order], order, loc="lower center", ncol=columns_of_legend, fontsize=9)
    figure.suptitle(title or f"{data['device']}, {data['date']}", fontsize=11)
    bottom = (0.035 * legend_rows + 0.01) * (3.4 * 6) / figure.get_figheight()
    figure.tight_layout(rect=(0, min(bottom, 0.25), 1, 0.95))
    # Written beside the target, then renamed: a failed run leaves no partial PNG.
    temporary = f"{out_path}.partial"
    try:
        figure.savefig(temporary, dpi=110, format="png")
        os.replace(temporary, out_path)
    except OSError as e:
        if os.path.exists(temporary):
            os.remove(temporary)
        sys.exit(f"plot.py: cannot write {out_path}: {e}")


def bar_panels(panels, out_path, title, ylabel, limit):
    """panels: {panel title: {group label: {series: value}}} as grouped bars, one panel each."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted(panels)
    columns = min(3, len(names))
    rows = math.ceil(len(names) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.5 * columns, 3.6 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        groups = list(panels[name])
        series = sorted({s for g in groups for s in panels[name][g]})
        width = 0.8 / max(1, len(series))
        for k, s in enumerate(series):
            xs = [i + k * width for i in range(len(groups))]
            ax.bar(xs, [panels[name][g].get(s, 0) for g in groups], width, label=s,
                   color=STYLES.get(s, {}).get("color"))
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))])
        ax.set_xticklabels(groups, fontsize=8)
        ax.set_title(name, fontsize=9)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.axhline(limit, color="black", linestyle=":", linewidth=0.8)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    try:
        fig.savefig(out_path, dpi=110)
    except OSError as e:
        sys.exit(f"plot.py: cannot write {out_path}: {e}")


def plot_segmented(data, out_path, title):
    panels = defaultdict(lambda: defaultdict(dict))
    for r in data["results"]:
        if r["impl"] == "copy":
            continue
        name = f"{r['op']}, 2^{r['log2_elements']} elements"
        panels[name][r["shape"]][r["impl"]] = r["percent_of_copy"]
    bar_panels(panels, out_path, title or f"corank_segmented_bench: {data['device']}, {data['date']}",
               "% of a device-to-device copy", 100)


def plot_streamed(data, out_path, title):
    panels = defaultdict(lambda: defaultdict(dict))
    for r in data["results"]:
        if "memory" not in r or r.get("chunk", 0) != 0:
            continue
        name = f"{r['memory']}, {r['type']}, 2^{r['log']} per input"
        short = {"set_union": "union", "set_intersection": "intersect", "set_difference": "diff",
                 "set_symmetric_difference": "symdiff", "set_intersection_count": "count"}
        panels[name][short.get(r["operation"], r["operation"])]["streamed"] = 100 * r["of_bound"]
    bar_panels(panels, out_path, title or f"corank_streamed_bench: {data['device']}, {data['date']}",
               "% of the copy bound", 100)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="the benchmark's --json output")
    parser.add_argument("png", help="the plot to write")
    parser.add_argument("--title", default="", help="the figure's title (default: device and date)")
    args = parser.parse_args()
    try:
        with open(args.json) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot.py: cannot read {args.json}: {e}")
    results = data.get("results", []) if isinstance(data, dict) else []
    if results and "shape" in results[0] and "segments" in results[0]:
        plot_segmented(data, args.png, args.title)
    elif any("memory" in r for r in results):
        plot_streamed(data, args.png, args.title)
    else:
        plot(data, args.png, args.title)


if __name__ == "__main__":
    main()
