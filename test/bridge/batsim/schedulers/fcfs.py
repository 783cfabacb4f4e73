"""FCFS in pybatsim's style (schedFcfs): jobs start in submission order on the lowest free
resources; the first job that does not fit blocks the queue; a job larger than the machine is
rejected."""
from batsched import Scheduler, main


class Fcfs(Scheduler):
    def on_begin(self, data):
        self.free = set(range(data["nb_resources"]))
        self.queue = []
        self.alloc = {}

    def on_submitted(self, job):
        if job["res"] > self.nb_resources:
            self.reject(job["id"])
        else:
            self.queue.append(job)

    def on_completed(self, job_id, data):
        self.free |= set(self.alloc.pop(job_id))

    def after_events(self):
        while self.queue and self.queue[0]["res"] <= len(self.free):
            job = self.queue.pop(0)
            ids = sorted(self.free)[: job["res"]]
            self.free -= set(ids)
            self.alloc[job["id"]] = ids
            self.execute(job["id"], ids)


if __name__ == "__main__":
    main(Fcfs)
