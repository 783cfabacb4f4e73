#!/usr/bin/env python3
"""A random heterogeneous IRMaSim platform (group format) and workload (every job form), see README.md.

Usage: gen_case.py SEED NJOBS NNODES OUTDIR [CLUSTERS] [one|all]  (IA=mean inter-arrival seconds)"""
import json, random, sys, math, os
def gen(seed, njobs, nnodes, outdir, mixed_procs=True, clusters=1, one_node=False):
    r = random.Random(seed)
    procs = {}
    ptypes = []
    for i in range(4):
        name = f"p{i}"
        cores = r.choice([2, 4, 8])
        procs[name] = {"cores": cores, "clock_rate": r.choice([1.5, 2.0, 2.5, 3.0, 3.4]), "dpflops_per_cycle": r.choice([1, 2, 4]),
                       "min_power": 0.05, "static_power": round(r.uniform(5, 40), 3), "dynamic_power": round(r.uniform(1, 12), 3),
                       "b": -1.85e-05, "c": 32000, "da": 1.75, "db": r.choice([2000, 3500]), "dc": r.choice([45000, 50000]), "dd": r.choice([3000, 6000])}
        ptypes.append(name)
    nodes = {}
    ntypes = []
    for i in range(4):
        name = f"n{i}"
        pl = [{"type": r.choice(ptypes), "number": r.choice([1, 2])}]
        if mixed_procs and r.random() < 0.4:
            pl.append({"type": r.choice(ptypes), "number": 1})
        nodes[name] = {"processors": pl, "memory": {"type": "DDR", "capacity": r.choice([16, 32, 64])}}
        ntypes.append(name)
    if isinstance(clusters, str) and ',' in clusters:
        per = [int(x) for x in clusters.split(',')]
        assert sum(per) == nnodes, 'cluster sizes must add up to NNODES'
    else:
        clusters = int(clusters)
        per = [nnodes // clusters + (1 if k < nnodes % clusters else 0) for k in range(clusters)]
    cl = []
    for k in range(len(per)):
        entries = []
        left = per[k]
        while left > 0:
            n = min(left, r.randint(1, 4))
            entries.append({"type": r.choice(ntypes), "number": n})
            left -= n
        cl.append({"id": f"cluster{k}", "nodes": entries})
    platform = {"platform": {"plat": {"id": "plat", "clusters": cl, "model_name": "modelV1"}}, "node": nodes, "processor": procs}
    # capacities
    def node_cores(t):
        return sum(procs[p["type"]]["cores"] * p["number"] for p in nodes[t]["processors"])
    allnodes = [e["type"] for c in cl for e in c["nodes"] for _ in range(e["number"])]
    maxc = max(node_cores(t) for t in allnodes)
    jobs = []
    t = 0.0
    for j in range(njobs):
        t += r.expovariate(1 / float(os.environ.get("IA", "3.0")))
        sub = round(t, 3) if r.random() < 0.7 else float(int(t))
        form = r.random()
        if one_node: form = 0.0
        job = {"id": f"j{j}", "subtime": sub}
        if form < 0.45:
            job["res"] = r.randint(1, min(8, maxc))
        elif form < 0.6:
            job["ntasks"] = r.randint(1, min(6, nnodes))
        elif form < 0.75:
            n = r.randint(1, min(4, nnodes)); job["nodes"] = n; job["ntasks"] = r.randint(n, n * min(4, maxc))
        elif form < 0.9:
            job["nodes"] = r.randint(1, min(3, nnodes)); job["ntasks_per_node"] = r.randint(1, min(4, maxc))
        else:
            tpn = r.randint(1, min(4, maxc)); nt = r.randint(1, 3 * tpn); job["ntasks"] = nt; job["ntasks_per_node"] = tpn; job["nodes"] = math.ceil(nt / tpn)
        secs = r.choice([r.uniform(1, 30), r.uniform(10, 200)])
        job["req_ops"] = int(secs * 2e9)
        job["ipc"] = r.choice([1, 1, 1.5, 2])
        job["req_time"] = round(secs * r.uniform(1.0, 3.0), 2)
        job["mem"] = r.choice([0, 100, 500, 1100])
        job["mem_vol"] = r.choice([0, 19, 1e4, 1e5, 1e6])
        job["req_energy"] = r.choice([0, 100, 500, 1000])
        # resolve as IRMaSim and keep only jobs that can fit
        if "res" in job: nn, tp = 1, job["res"]
        else:
            nt = job.get("ntasks"); nn = job.get("nodes"); tp = job.get("ntasks_per_node")
            if nn is None: tp = tp or 1; nn = math.ceil(nt / tp)
            elif nt is None: tp = tp or 1
            else: tp = math.ceil(nt / nn)
        if sum(1 for t in allnodes if node_cores(t) >= tp) < nn:
            job.pop("nodes", None); job.pop("ntasks", None); job.pop("ntasks_per_node", None); job["res"] = 1
        jobs.append(job)
    os.makedirs(outdir, exist_ok=True)
    json.dump(platform, open(os.path.join(outdir, "platform.json"), "w"), indent=1)
    json.dump({"jobs": jobs}, open(os.path.join(outdir, "workload.json"), "w"), indent=1)
if __name__ == "__main__":
    gen(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], clusters=sys.argv[5] if len(sys.argv) > 5 else 1, one_node=len(sys.argv) > 6 and sys.argv[6] == 'one')
