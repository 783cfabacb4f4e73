"""FCFS with power states in pybatsim's style (fcfsSchedSleep): idle machines are switched off
(pstate SLEEP) when no job waits (once the first job has arrived); when the head job needs more machines than are on, sleeping
ones are switched on (pstate ON); jobs start once their machines are on. At each job completion
the scheduler asks for the energy consumed so far (QUERY consumed_energy), and records the
answers in the transcript. Usage: power.py ENDPOINT TRANSCRIPT [ON SLEEP]"""
import sys

from batsched import Scheduler, main

ON = int(sys.argv[3]) if len(sys.argv) > 3 else 0
SLEEP = int(sys.argv[4]) if len(sys.argv) > 4 else 2


class Power(Scheduler):
    def on_begin(self, data):
        self.idle = set(range(data["nb_resources"]))
        self.sleeping, self.switching = set(), set()
        self.queue, self.alloc = [], {}
        self.seen_job = False

    def on_submitted(self, job):
        self.seen_job = True
        self.queue.append(job)

    def on_completed(self, job_id, data):
        self.idle |= set(self.alloc.pop(job_id))
        self.query_energy()

    def on_state_changed(self, ids, state):
        self.switching -= set(ids)
        if int(state) == SLEEP:
            self.sleeping |= set(ids)
        else:
            self.idle |= set(ids)

    def after_events(self):
        while self.queue and self.queue[0]["res"] <= len(self.idle):
            job = self.queue.pop(0)
            ids = sorted(self.idle)[: job["res"]]
            self.idle -= set(ids)
            self.alloc[job["id"]] = ids
            self.execute(job["id"], ids)
        if self.queue:
            missing = self.queue[0]["res"] - len(self.idle) - len(self.switching)
            wake = sorted(self.sleeping)[: max(0, missing)]
            if wake:
                self.sleeping -= set(wake)
                self.switching |= set(wake)
                self.set_resource_state(wake, ON)
        elif self.idle and self.seen_job:
            off = sorted(self.idle)
            self.idle = set()
            self.switching |= set(off)
            self.set_resource_state(off, SLEEP)


if __name__ == "__main__":
    main(Power)
