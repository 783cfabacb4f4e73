"""A misbehaving scheduler for the error tests: answers Batsim's requests with the replies listed in
a JSON file (a list; each item is a raw string sent as is, or an object sent as JSON, where the
string "$now" in it is replaced by the request's now), then: "silent" (receives and never
answers), "exit" (dies) or "echo-empty" (answers every request with no event).
Usage: scripted.py ENDPOINT TRANSCRIPT REPLIES.json THEN (the transcript is not written)"""
import json
import sys
import time

import zmq

endpoint, replies_file, then = sys.argv[1], sys.argv[3], sys.argv[4]
replies = json.load(open(replies_file))
ctx = zmq.Context()
sock = ctx.socket(zmq.REP)
sock.bind(endpoint)


def fill(x, now):
    if x == "$now":
        return now
    if isinstance(x, dict):
        return {k: fill(v, now) for k, v in x.items()}
    if isinstance(x, list):
        return [fill(v, now) for v in x]
    return x


for r in replies:
    now = json.loads(sock.recv_string())["now"]
    sock.send_string(r if isinstance(r, str) else json.dumps(fill(r, now)))
while True:
    try:
        msg = sock.recv_string()
    except zmq.ZMQError:
        break
    if then == "silent":
        time.sleep(60)
        break
    if then == "exit":
        sys.exit(0)
    now = json.loads(msg)["now"]
    sock.send_string(json.dumps({"now": now, "events": []}))
    if "SIMULATION_ENDS" in msg:
        break
