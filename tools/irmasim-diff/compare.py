#!/usr/bin/env python3
"""IRMaSim ($IRMASIM) and clustergym on one options file: the worst per-job |difference| of start and
finish, the makespans and energies (clustergym with --idle-power after-first-task, IRMaSim's accounting).

Usage: compare.py OPTIONS  -> one JSON line"""
import csv, json, os, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
cli = os.path.join(here, "..", "..", "dist", "cli", "main.js")
opts = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp()
ir = json.loads(subprocess.run([sys.executable, os.path.join(here, "run_irmasim.py"), opts, tmp + "/ir"], capture_output=True, text=True, check=True).stdout)
p = subprocess.run(["node", cli, "simulate", "--irmasim", opts, "--out", tmp + "/cg", "--json", "--idle-power", "after-first-task"], capture_output=True, text=True)
if p.returncode != 0:
    sys.exit("clustergym failed: " + p.stderr)
summary = json.loads(p.stdout)
with open(tmp + "/cg/jobs.csv") as f:
    cg = {row["job_id"]: (float(row["start"]), float(row["finish"])) for row in csv.DictReader(f)}
worst, worst_job, missing = 0.0, None, []
for j, (s, e) in ir["jobs"].items():
    if j not in cg:
        missing.append(j)
        continue
    d = max(abs(cg[j][0] - s), abs(cg[j][1] - e))
    if d > worst:
        worst, worst_job = d, j
extra = [j for j in cg if j not in ir["jobs"]]
energy = ir.get("energy", float("nan"))
print(json.dumps({"options": os.path.basename(opts), "jobs": len(ir["jobs"]), "worst_dt": worst, "worst_job": worst_job,
                  "missing": len(missing), "extra": len(extra), "makespan": [ir.get("time"), summary["makespan"]],
                  "energy": [energy, summary["energy"]], "rel_d_energy": abs(summary["energy"] - energy) / max(1.0, abs(energy))}))
