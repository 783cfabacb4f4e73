"""EASY backfilling in pybatsim's style (easyBackfill), count-based as clustergym's EASY: jobs start
in submission order while they fit; the first that does not fit (the head) gets a reservation at
its shadow time T (the earliest expected end, start + walltime, after which it fits); a later job
that fits now starts if it ends by T or takes only the `extra` resources the head leaves at T."""
from batsched import Scheduler, main


class Easy(Scheduler):
    def on_begin(self, data):
        self.free = set(range(data["nb_resources"]))
        self.queue = []
        self.running = {}  # job id -> (expected end, ids)

    def on_submitted(self, job):
        if job["res"] > self.nb_resources:
            self.reject(job["id"])
        else:
            self.queue.append(job)

    def on_completed(self, job_id, data):
        self.free |= set(self.running.pop(job_id)[1])

    def start(self, job):
        ids = sorted(self.free)[: job["res"]]
        self.free -= set(ids)
        self.running[job["id"]] = (self.now + job["walltime"], ids)
        self.execute(job["id"], ids)

    def after_events(self):
        while self.queue and self.queue[0]["res"] <= len(self.free):
            self.start(self.queue.pop(0))
        if not self.queue:
            return
        head = self.queue[0]
        free, shadow = len(self.free), float("inf")
        for end, ids in sorted(self.running.values(), key=lambda r: r[0]):
            end = max(end, self.now)
            if end > shadow:
                break
            free += len(ids)
            if free >= head["res"] and shadow == float("inf"):
                shadow = end
        extra = free - head["res"] if shadow != float("inf") else 0
        for job in list(self.queue[1:]):
            if job["res"] > len(self.free):
                continue
            if self.now + job["walltime"] <= shadow:
                self.queue.remove(job)
                self.start(job)
            elif job["res"] <= extra:
                extra -= job["res"]
                self.queue.remove(job)
                self.start(job)


if __name__ == "__main__":
    main(Easy)
