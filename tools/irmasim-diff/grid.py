#!/usr/bin/env python3
"""Every manager configuration (configs.py) on one generated case: IRMaSim against clustergym.

Usage: grid.py SEED NJOBS NNODES [CLUSTERS] [FILTER] [one|all]  (IA=mean inter-arrival seconds)"""
import json, os, subprocess, sys

from configs import configs, one_node_only

here = os.path.dirname(os.path.abspath(__file__))
seed, nj, nn = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
clusters = sys.argv[4] if len(sys.argv) > 4 else "1"
filt = sys.argv[5] if len(sys.argv) > 5 else ""
one = len(sys.argv) > 6 and sys.argv[6] == "one"
d = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"irmasim-grid_{seed}_{nj}_{nn}_{clusters.replace(',', '-')}{'_one' if one else ''}")
subprocess.run([sys.executable, os.path.join(here, "gen_case.py"), str(seed), str(nj), str(nn), d, str(clusters), "one" if one else "all"], check=True)
bad = total = 0
for name, wm in configs():
    if filt not in name or (one_node_only(name) and not one):
        continue
    total += 1
    path = os.path.join(d, "options_" + name.replace(":", "_") + ".json")
    with open(path, "w") as f:
        json.dump({"seed": seed, "platform_file": "platform.json", "platform_name": "plat", "workload_file": "workload.json", "workload_manager": wm}, f)
    p = subprocess.run([sys.executable, os.path.join(here, "compare.py"), path], capture_output=True, text=True)
    try:
        r = json.loads(p.stdout)
        ok = r["worst_dt"] == 0 and r["missing"] == 0 and r["extra"] == 0 and r["rel_d_energy"] < 1e-12
        bad += not ok
        print(("same " if ok else "DIFF ") + name, f"worst|dt|={r['worst_dt']:.3g} missing={r['missing']} extra={r['extra']} rel|dE|={r['rel_d_energy']:.1e} makespan={r['makespan'][0]}", flush=True)
    except ValueError:
        bad += 1
        print("ERR  " + name, (p.stdout + p.stderr)[-300:], flush=True)
print(f"{total - bad} of {total} configurations agree exactly")
