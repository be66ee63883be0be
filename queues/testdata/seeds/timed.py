"""The classic timed message queue with redis-py, consumed as the recipe's Java code
consumes it: a sorted set scored by a timestamp in milliseconds; a consumer takes the
first member scored from 0 to now (ZRANGEBYSCORE key 0 now LIMIT 0 1), then ZREM; when
ZREM returns 0 another consumer was first, and it sleeps and tries again.

    /usr/bin/python3 timed.py STEP...

Each STEP is one of
    add:KEY:SCORE:MEMBER    ZADD KEY SCORE MEMBER; prints "added MEMBER"
    pop:KEY:NOW             takes one due member (NOW in ms); prints "took MEMBER"
                            or "took none" when none is due
    drain:KEY:NOW           takes due members until none is left; prints "took MEMBER"
                            for each

The server is REDIS_HOST:REDIS_PORT (127.0.0.1:6379); SEED_SLEEP is the pause after a
lost race in seconds (the recipe's 1).
"""
import os
import sys
import time

import redis

r = redis.Redis(host=os.environ.get("REDIS_HOST", "127.0.0.1"),
                port=int(os.environ.get("REDIS_PORT", "6379")), decode_responses=True)
SLEEP = float(os.environ.get("SEED_SLEEP", "1"))


def get_data(key, now):
    """Returns a due member, taken, or None when none is due."""
    while True:
        seta = r.zrangebyscore(key, 0, now, start=0, num=1)
        if not seta:
            return None
        data = seta[0]
        if r.zrem(key, data) > 0:
            return data
        time.sleep(SLEEP)


for step in sys.argv[1:]:
    op, *args = step.split(":", 3)
    if op == "add":
        key, score, member = args
        r.zadd(key, {member: float(score)})
        print("added", member)
    elif op == "pop":
        print("took", get_data(args[0], float(args[1])) or "none")
    elif op == "drain":
        while True:
            m = get_data(args[0], float(args[1]))
            if m is None:
                break
            print("took", m)
    else:
        sys.exit("timed.py: unknown step " + step)
