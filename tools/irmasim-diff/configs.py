"""Every workload-manager configuration of IRMaSim's heuristic managers (names and `workload_manager` objects)."""

JOB = ["first", "shortest", "longest", "smallest", "low_mem", "low_mem_ops", "random"]
RESOURCE = ["first", "high_gflops", "high_cores", "low_cores", "high_mem", "high_mem_bw", "low_power", "random"]
# IRMaSim's Backfill crashes on high_gflops (it reads an attribute that does not exist): left out
BACKFILL = ["first", "random", "high_cores", "high_mem", "high_mem_bw", "low_power", "energy_lowest", "energy_highest", "edp_lowest", "edp_highest"]


def configs():
    out = [(f"Heuristic:{j}:{r}", {"type": "Heuristic", "job_selection": j, "resource_selection": r}) for j in JOB for r in RESOURCE]
    out += [(f"Backfill:{r}", {"type": "Backfill", "resource_selection": r}) for r in BACKFILL]
    out += [(f"EnergyHeuristic:{m}:{a}:{b}", {"type": "EnergyHeuristic", "metric": m, "job_selection": a, "resource_selection": b})
            for m in ["energy", "edp", "timetasks"] for a in ["lowest", "highest"] for b in ["lowest", "highest"]]
    out += [(f"Duplex:{o}", {"type": "Duplex", "scheduling_option": o}) for o in ["duplex", "min_min", "max_min"]]
    out.append(("Minimal", {"type": "Minimal"}))
    return out


def one_node_only(name):
    """Managers IRMaSim runs correctly only on one-node jobs."""
    return name.startswith("EnergyHeuristic") or name.startswith("Duplex")
