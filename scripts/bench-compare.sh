#!/usr/bin/env bash
# Runs one `hybrid bench` subcommand with two builds of `hybrid` (say, main and a branch), alternating them in
# rounds on the same machine, and prints each figure of every round side by side. Each run is the benchmark's own
# (its figures already sit next to a baseline measured in that run); alternating the builds in rounds keeps a
# drift of the machine's load from favouring one side.
#
#   scripts/bench-compare.sh --a <hybrid binary> --b <hybrid binary> [--rounds N] [--out DIR] -- <bench args…>
#   e.g. scripts/bench-compare.sh --a ../old/.build/release/hybrid --b .build/release/hybrid --rounds 3 -- bodies
#
# Prints, per figure, the value and ratio of each round for A and for B, and the median ratio of each side. The raw
# JSON lines of every run are kept in --out (default: a new temporary folder, printed).
set -euo pipefail

a="" b="" rounds=3 out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --a) a="$2"; shift 2 ;;
        --b) b="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --) shift; break ;;
        *) echo "bench-compare: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
    esac
done
[ -x "$a" ] && [ -x "$b" ] || { echo "bench-compare: --a and --b must name built hybrid binaries" >&2; exit 2; }
[ $# -gt 0 ] || { echo "bench-compare: name the benchmark after --, e.g. -- bodies" >&2; exit 2; }
out="${out:-$(mktemp -d)}"
mkdir -p "$out"

for round in $(seq 1 "$rounds"); do
    # A first in odd rounds, B first in even ones.
    if [ $((round % 2)) -eq 1 ]; then order="a b"; else order="b a"; fi
    for side in $order; do
        binary=$a; [ "$side" = b ] && binary=$b
        echo "bench-compare: round $round, side $side: $binary bench $* --json" >&2
        "$binary" bench "$@" --json > "$out/$side-$round.jsonl"
    done
done

python3 - "$out" "$rounds" <<'EOF'
import json, statistics, sys, pathlib
out, rounds = pathlib.Path(sys.argv[1]), int(sys.argv[2])
rows = {}
for side in "ab":
    for r in range(1, rounds + 1):
        for line in (out / f"{side}-{r}.jsonl").read_text().splitlines():
            line = line.strip()
            if not line.startswith("{"):
                continue
            f = json.loads(line)
            key = (f.get("scenario", ""), f.get("figure", ""))
            rows.setdefault(key, {"a": [], "b": [], "unit": f.get("unit", "")})[side].append(f)
def cell(fs):
    return " / ".join(f"{f['value']:.4g}" + (f" ({f['ratio']:.2f}×)" if f.get("ratio") is not None else "") for f in fs)
def median_ratio(fs):
    ratios = [f["ratio"] for f in fs if f.get("ratio") is not None]
    return f"{statistics.median(ratios):.2f}×" if ratios else "–"
print("| scenario | figure | unit | A: value (ratio) per round | B: value (ratio) per round | A median | B median |")
print("|---|---|---|---|---|---|---|")
for (scenario, figure), r in rows.items():
    print(f"| {scenario} | {figure} | {r['unit']} | {cell(r['a'])} | {cell(r['b'])} | {median_ratio(r['a'])} | {median_ratio(r['b'])} |")
print(f"\n(raw JSON lines: {out})")
EOF
