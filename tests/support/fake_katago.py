#!/usr/bin/env python3
"""A stand-in for `katago analysis` that replays a real transcript (../shared/data/katago-analysis/).

Usage: fake_katago.py [--scale S] [--counter FILE] TRANSCRIPT [TRANSCRIPT ...]

Each launch replays the next transcript (FILE counts launches; the last transcript repeats). Lines the
client writes are matched against the lines KataGo read in the recording, key by key (numbers compare as
numbers, a missing `initialStones` equals an empty one); a mismatch is reported on stderr and ends the
process with status 3. Lines KataGo wrote are written back byte for byte, except that the recorded query
ids are replaced by the ids the client chose, and the reply to a recorded `query_version` is written as
soon as that query arrives (KataGo answers it at once; clients wait for it before sending more). Delays between lines are the recorded ones times S. An `exit`
record kills the process with SIGKILL, as happened in the recording. A `query_version` the recording does
not contain is answered with transcript 04's reply (version 1.17.2).
"""
import json
import os
import signal
import sys
import time

VERSION_REPLY = '{"action":"query_version","git_hash":"<omitted>","id":%s,"version":"1.17.2"}'


def main():
    args = sys.argv[1:]
    scale, counter = 0.05, None
    while args and args[0].startswith("--"):
        flag, value = args[0], args[1]
        args = args[2:]
        if flag == "--scale":
            scale = float(value)
        elif flag == "--counter":
            counter = value
    launch = 0
    if counter:
        try:
            with open(counter) as f:
                launch = int(f.read().strip() or 0)
        except FileNotFoundError:
            launch = 0
        with open(counter, "w") as f:
            f.write(str(launch + 1))
    path = args[min(launch, len(args) - 1)]
    records = [json.loads(line) for line in open(path) if line.strip()]
    sys.stderr.write("KataGo v1.17.2 (replaying %s)\n" % os.path.basename(path))
    sys.stderr.write("Started, ready to begin handling requests\n")
    sys.stderr.flush()

    ids = {}  # recorded id -> the client's id
    done = set()  # indices of out records already written
    clock = 0.0
    i = 0
    while i < len(records):
        rec = records[i]
        if rec["dir"] == "in":
            block = []
            while i < len(records) and records[i]["dir"] == "in":
                block.append(records[i])
                i += 1
            unmatched = [json.loads(r["line"]) for r in block]
            while unmatched:
                wants_version = any(q.get("action") == "query_version" for q in unmatched)
                sent = read_client_line(answer_version=not wants_version)
                expected = next((q for q in unmatched if same_query(q, sent, ids)), None)
                if expected is None:
                    fail("query %s matches none of %s" % (json.dumps(sent), [q.get("id") for q in unmatched]))
                unmatched.remove(expected)
                ids[expected["id"]] = sent["id"]
                if expected.get("action") == "query_version":
                    # KataGo answers a version query at once; the client waits for it before sending more.
                    answer_early(records, i, expected["id"], ids, done)
            clock = max(clock, block[-1]["ms"])
        elif rec["dir"] == "out" and i in done:
            i += 1
        elif rec["dir"] == "out":
            time.sleep(max(0.0, rec["ms"] - clock) * scale / 1000.0)
            clock = rec["ms"]
            sys.stdout.write(with_client_ids(rec["line"], ids) + "\n")
            sys.stdout.flush()
            i += 1
        else:  # "exit": the recorded process was killed here
            time.sleep(max(0.0, rec["ms"] - clock) * scale / 1000.0)
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGKILL)
    # The recording is over: answer version queries, ignore the rest, exit when stdin closes.
    while True:
        read_client_line(answer_version=True)


def answer_early(records, start, recorded_id, ids, done):
    for j in range(start, len(records)):
        rec = records[j]
        if rec["dir"] == "out" and json.loads(rec["line"]).get("id") == recorded_id:
            sys.stdout.write(with_client_ids(rec["line"], ids) + "\n")
            sys.stdout.flush()
            done.add(j)
            return


def read_client_line(answer_version):
    """The client's next line, answering handshakes the recording does not contain."""
    while True:
        line = sys.stdin.readline()
        if not line:
            sys.exit(0)
        if not line.strip():
            continue
        sent = json.loads(line)
        if sent.get("action") == "query_version" and answer_version:
            sys.stdout.write(VERSION_REPLY % json.dumps(sent["id"]) + "\n")
            sys.stdout.flush()
            continue
        return sent


def same_query(recorded, sent, ids):
    rec = {k: v for k, v in recorded.items() if k != "id"}
    got = {k: v for k, v in sent.items() if k != "id"}
    if rec.get("initialStones") == []:
        rec.pop("initialStones")
    if "terminateId" in rec:
        rec["terminateId"] = ids.get(rec["terminateId"], rec["terminateId"])
    return equal(rec, got)


def equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    return a == b


def with_client_ids(line, ids):
    for recorded, client in ids.items():
        for key in ("id", "terminateId"):
            line = line.replace('"%s":%s' % (key, json.dumps(recorded)), '"%s":%s' % (key, json.dumps(client)))
    return line


def fail(message):
    sys.stderr.write("fake katago: %s\n" % message)
    sys.stderr.flush()
    sys.exit(3)


if __name__ == "__main__":
    main()
