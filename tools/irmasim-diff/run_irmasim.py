#!/usr/bin/env python3
"""Runs IRMaSim ($IRMASIM) on an options file; prints JSON {jobs: {id: [start, finish]}, time, energy}.

Usage: run_irmasim.py OPTIONS OUTDIR   (runs in the options file's folder, as IRMaSim expects)"""
import contextlib, io, json, os, sys

root = os.environ.get("IRMASIM")
if not root:
    sys.exit("set IRMASIM to a checkout of https://github.com/irmasim/IRMaSim")
sys.path.insert(0, root)
opts, outdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
os.chdir(os.path.dirname(opts))
import irmasim.cmd as cmd  # noqa: E402

buf = io.StringIO()
sys.argv = ["irmasim", os.path.basename(opts), "-o", outdir]
try:
    with contextlib.redirect_stdout(buf):
        cmd.launch()
except SystemExit:
    pass
res = {"jobs": {}}
for line in buf.getvalue().splitlines():
    if line.startswith("Simulation time:"):
        res["time"] = float(line.split("total:")[1])
    if line.startswith("Energy consumption:"):
        res["energy"] = float(line.split("total:")[1])
with open(os.path.join(outdir, "jobs.log")) as f:
    for line in f.read().splitlines()[1:]:
        cells = line.split(",")
        res["jobs"].setdefault(cells[1].rsplit(".", 1)[0], [float(cells[6]), float(cells[7])])
print(json.dumps(res))
