#!/usr/bin/env python3
"""The golden file of test/scheduling/irmasim: IRMaSim's per-job start and finish, makespan and energy
for every manager configuration on two small generated cases (see README.md). Prints JSON."""
import json, os, subprocess, sys, tempfile

from configs import configs, one_node_only

here = os.path.dirname(os.path.abspath(__file__))
out = {"irmasim": "irmasim/IRMaSim 7a51f14", "cases": {}}
for case, args in {"all-forms": ["11", "30", "13", "11,2", "all"], "one-node": ["12", "30", "6", "1", "one"]}.items():
    d = tempfile.mkdtemp()
    env = dict(os.environ, IA="0.8")
    subprocess.run([sys.executable, os.path.join(here, "gen_case.py"), args[0], args[1], args[2], d, args[3], args[4]], check=True, env=env)
    with open(os.path.join(d, "platform.json")) as f:
        platform = json.load(f)
    with open(os.path.join(d, "workload.json")) as f:
        workload = json.load(f)
    runs = {}
    for name, wm in configs():
        if one_node_only(name) != (args[4] == "one"):
            continue
        opts = os.path.join(d, "options_" + name.replace(":", "_") + ".json")
        with open(opts, "w") as f:
            json.dump({"seed": int(args[0]), "platform_file": "platform.json", "platform_name": "plat", "workload_file": "workload.json", "workload_manager": wm}, f)
        r = json.loads(subprocess.run([sys.executable, os.path.join(here, "run_irmasim.py"), opts, d + "/out"], capture_output=True, text=True, check=True).stdout)
        runs[name] = {"workload_manager": wm, "makespan": r["time"], "energy": r["energy"], "jobs": r["jobs"]}
    out["cases"][case] = {"seed": int(args[0]), "platform": platform, "workload": workload, "runs": runs}
print(json.dumps(out, separators=(",", ":")))
