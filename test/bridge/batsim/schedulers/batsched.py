"""A scheduler loop in pybatsim's style, on python3-zmq only (no pybatsim needed).

The scheduler binds a REP socket (as pybatsim does), receives Batsim's requests, calls the
handlers of a `Scheduler` subclass for each event and replies with the decisions it queued.
Each message received and sent is appended to the transcript file (one JSON object per line,
{"dir": "recv"|"send", "msg": ...}) so that tests can check the sequence.
"""
import json
import sys

import zmq


class Scheduler:
    """Override the on_* handlers; call the decision helpers from them."""

    def __init__(self, endpoint, transcript=None):
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.REP)
        self.sock.bind(endpoint)
        self.transcript = open(transcript, "w") if transcript else None
        self.now = 0.0
        self.out = []
        self.nb_resources = 0
        self.jobs = {}

    # ---- decisions (pybatsim's Batsim methods)
    def _push(self, type_, data):
        self.out.append({"timestamp": self.now, "type": type_, "data": data})

    def execute(self, job_id, ids, mapping=None):
        data = {"job_id": job_id, "alloc": interval_set(ids)}
        if mapping is not None:
            data["mapping"] = mapping
        self._push("EXECUTE_JOB", data)

    def reject(self, job_id):
        self._push("REJECT_JOB", {"job_id": job_id})

    def kill(self, job_ids):
        self._push("KILL_JOB", {"job_ids": list(job_ids)})

    def call_me_later(self, t):
        self._push("CALL_ME_LATER", {"timestamp": t})

    def set_resource_state(self, ids, state):
        self._push("SET_RESOURCE_STATE", {"resources": interval_set(ids), "state": str(state)})

    def query_energy(self):
        self._push("QUERY", {"requests": {"consumed_energy": {}}})

    def set_metadata(self, job_id, metadata):
        self._push("SET_JOB_METADATA", {"job_id": job_id, "metadata": metadata})

    # ---- handlers
    def on_begin(self, data):
        pass

    def on_submitted(self, job):
        pass

    def on_completed(self, job_id, data):
        pass

    def on_killed(self, data):
        pass

    def on_state_changed(self, ids, state):
        pass

    def on_energy(self, joules):
        pass

    def on_requested_call(self):
        pass

    def on_notify(self, data):
        pass

    def on_end(self):
        pass

    def after_events(self):
        """Called once per message, after its events (where schedulers decide)."""

    # ---- the loop
    def _log(self, direction, msg):
        if self.transcript:
            self.transcript.write(json.dumps({"dir": direction, "msg": msg}) + "\n")
            self.transcript.flush()

    def run(self):
        ended = False
        while not ended:
            msg = json.loads(self.sock.recv_string())
            self._log("recv", msg)
            self.now = msg["now"]
            self.out = []
            for ev in msg["events"]:
                t, d = ev["type"], ev.get("data", {})
                if t == "SIMULATION_BEGINS":
                    self.nb_resources = d["nb_resources"]
                    self.on_begin(d)
                elif t == "JOB_SUBMITTED":
                    self.jobs[d["job_id"]] = d["job"]
                    self.on_submitted(d["job"])
                elif t == "JOB_COMPLETED":
                    self.on_completed(d["job_id"], d)
                elif t == "JOB_KILLED":
                    self.on_killed(d)
                elif t == "RESOURCE_STATE_CHANGED":
                    self.on_state_changed(parse_interval_set(d["resources"]), d["state"])
                elif t == "ANSWER":
                    self.on_energy(d["consumed_energy"])
                elif t == "REQUESTED_CALL":
                    self.on_requested_call()
                elif t == "NOTIFY":
                    self.on_notify(d)
                elif t == "SIMULATION_ENDS":
                    ended = True
                    self.on_end()
                else:
                    raise ValueError("unknown event " + t)
            if not ended:
                self.after_events()
            reply = {"now": self.now, "events": sorted(self.out, key=lambda e: e["timestamp"])}
            self.sock.send_string(json.dumps(reply))
            self._log("send", reply)
        self.sock.close(linger=0)
        self.ctx.term()


def interval_set(ids):
    ids = sorted(set(ids))
    parts, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else "%d-%d" % (ids[i], ids[j]))
        i = j + 1
    return " ".join(parts)


def parse_interval_set(s):
    out = []
    for part in s.split():
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def main(cls):
    endpoint = sys.argv[1]
    transcript = sys.argv[2] if len(sys.argv) > 2 else None
    cls(endpoint, transcript).run()
