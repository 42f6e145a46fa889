"""A Python Fleet worker loop over the upstream backend.py, for the cross-language test.

The upstream module is imported from FLEET_PY_BACKEND (a directory holding backend.py,
or the file itself); by default from ../shared/spec beside the repository root. It is
never copied into this repository.

    worker.py run    --url URL --queue Q --ns NS [--submit N --hang K --fail F] [--visibility S] [--max-attempts M] [--atomic-drain]
    worker.py config --url URL --type T --worker-id W --set JSON [--force-gen G]
    worker.py drain-race --url URL --queue Q
    worker.py produce --url URL --queue Q --count N [--fail F] [--hang H] [--long L]

`--atomic-drain` replaces the reference's `_drain_scheduled` (ZRANGEBYSCORE, then a second
round trip that ZREMRANGEBYSCOREs and RPUSHes what the first one read: two reservers can both
push the same due retry) with one Lua call, as the Redis schema document promises. The
interop test uses it so that every duplicate it can still see is the TypeScript side's.
`drain-race` shows the reference's race itself: it reads the due retries as
`_drain_scheduled` does, says READ, waits for a line on stdin (the test reserves from the
TypeScript side meanwhile), then lets the reference finish its drain and says PUSHED.

`run` prints one line per event on stdout: READY, SUBMITTED <ids,...>, HANG <id>,
START <id> <attempts> <sha1 of the body>, DONE <id>, RETRY <id> <attempts>, DEAD <id>, LATEACK <id>.
"""
from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import random
import sys
import uuid
from pathlib import Path


def load_backend_module():
    default = Path(__file__).resolve().parents[4] / ".." / "shared" / "spec"
    where = Path(os.environ.get("FLEET_PY_BACKEND") or default).resolve()
    path = where / "backend.py" if where.is_dir() else where
    if not path.is_file():
        sys.exit(f"upstream backend.py not found at {path} (set FLEET_PY_BACKEND)")
    spec = importlib.util.spec_from_file_location("fleet_upstream_backend", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    # dataclasses look the module up in sys.modules while it executes
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ATOMIC_DRAIN = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if #due > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
  for i = 1, #due do redis.call('RPUSH', KEYS[2], due[i]) end
end
return #due
"""


def use_atomic_drain(backend) -> None:
    script = backend.r.register_script(ATOMIC_DRAIN)

    async def drain(name: str) -> None:
        import time
        await script(keys=[backend.QUEUE_SCHEDULED.format(name=name), backend.QUEUE_KEY.format(name=name)], args=[repr(time.time())])

    backend._drain_scheduled = drain


def say(*parts: object) -> None:
    print(*parts, flush=True)


async def submit(backend, queue: str, n: int, hang: int, fail: int) -> list[str]:
    ids: list[str] = []
    for i in range(n):
        task_id = uuid.uuid4().hex
        payload = {"n": i, "src": "py", "hang": i < hang, "fail": hang <= i < hang + fail}
        body = json.dumps({"id": task_id, "payload": payload}).encode("utf-8")
        await backend.queue_push(queue, body, priority=random.choice([1, 0, 0, -1]))
        ids.append(task_id)
    return ids


async def run(args) -> None:
    mod = load_backend_module()
    backend = mod.RedisBackend(args.url)
    if args.atomic_drain:
        use_atomic_drain(backend)
    if args.submit:
        ids = await submit(backend, args.queue, args.submit, args.hang, args.fail)
        say("SUBMITTED", ",".join(ids))
    say("READY")
    while True:
        body = await backend.queue_reserve(args.queue, 1.0, args.visibility)
        if body is None:
            continue
        doc = json.loads(body.decode("utf-8"))
        task_id = str(doc["id"])
        payload = doc.get("payload") or {}
        attempts = int(doc.get("attempts") or 0)
        import hashlib
        say("START", task_id, attempts, hashlib.sha1(body).hexdigest())
        try:
            if payload.get("hang") and await backend.kv_setnx(args.ns, f"hang:{task_id}", b"py", None):
                say("HANG", task_id)
                await asyncio.sleep(3600)  # the test SIGKILLs this process here
            if payload.get("fail"):
                raise RuntimeError(f"python refuses task {payload.get('n')}")
            await asyncio.sleep(random.uniform(0.005, 0.03))
            # the done record, written after the work and before the ack
            await backend.counter_incr(f"{args.ns}:done:{task_id}", 1)
            await backend.counter_incr(f"{args.ns}:by:py", 1)
            if not await backend.queue_ack(args.queue, task_id):
                await backend.counter_incr(f"{args.ns}:lateack", 1)
                say("LATEACK", task_id)
            say("DONE", task_id)
        except Exception as err:  # noqa: BLE001 - every failure of a run is retried or dead-lettered
            attempts += 1
            doc["attempts"] = attempts
            doc["last_error"] = f"{type(err).__name__}: {err}"
            new_body = json.dumps(doc).encode("utf-8")
            if attempts >= args.max_attempts:
                await backend.queue_dead(args.queue, new_body)
                await backend.queue_ack(args.queue, task_id)
                say("DEAD", task_id)
            else:
                delay = min(5.0, args.retry_base * 2 ** (attempts - 1))
                await backend.queue_nack(args.queue, task_id, new_body, delay_seconds=delay)
                say("RETRY", task_id, attempts)


def odd_id(i: int):
    """Ids as a Python producer may write them: big integers, floats, booleans, strings."""
    kind = i % 6
    if kind == 0:
        return 2**64 + i  # beyond 2^53: JavaScript numbers cannot hold it
    if kind == 1:
        return i + 0.5
    if kind == 2:
        return float(i)  # json.dumps writes 7.0, not 7
    if kind == 3:
        return (i + 1) * 1e-07  # repr in exponent form
    if kind == 4:
        return -(2**53 + i)
    return f"py-{i}-\u00e9\u2603"  # non-ASCII: json.dumps escapes it


async def produce(args) -> None:
    """Pushes bodies as a Python producer writes them and prints BODY <base64> per body."""
    import base64
    mod = load_backend_module()
    backend = mod.RedisBackend(args.url)
    for i in range(args.count):
        payload = {
            "n": i,
            "src": "py-producer",
            "big": 2**63 + i,
            "ratio": 1.0,
            "tiny": 1e-12,
            "hang": i < args.hang,
            "fail": args.hang <= i < args.hang + args.fail,
            "long": args.hang + args.fail <= i < args.hang + args.fail + args.long,
        }
        body = json.dumps({"id": odd_id(i), "payload": payload}).encode("utf-8")
        await backend.queue_push(args.queue, body, priority=[1, 0, 0, -1][i % 4])
        say("BODY", base64.b64encode(body).decode("ascii"))
    say("PRODUCED", args.count)
    await backend.aclose()


async def drain_race(args) -> None:
    mod = load_backend_module()
    backend = mod.RedisBackend(args.url)
    real = backend.r.zrangebyscore

    async def read_then_wait(*a, **kw):
        due = await real(*a, **kw)
        say("READ", len(due))
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        return due

    backend._r.zrangebyscore = read_then_wait
    await backend._drain_scheduled(args.queue)
    say("PUSHED")
    await backend.aclose()


async def config(args) -> None:
    mod = load_backend_module()
    backend = mod.RedisBackend(args.url)
    cfg = json.loads(args.set)
    if args.force_gen is None:
        _, gen = await backend.worker_set_config(args.type, args.worker_id, cfg)
    else:
        # a stale master (or a Redis that lost data) writing an older generation
        await backend.r.set(f"wkr:{args.type}:{args.worker_id}:config", json.dumps(cfg).encode("utf-8"))
        await backend.r.set(f"wkr:{args.type}:{args.worker_id}:gen", str(args.force_gen))
        gen = args.force_gen
    await backend.event_publish(
        "fleet.config",
        json.dumps({"automation_type": args.type, "worker_id": args.worker_id, "config_gen": gen}).encode("utf-8"),
    )
    say("GEN", gen)
    await backend.aclose()


def main() -> None:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--url", required=True)
    r.add_argument("--queue", required=True)
    r.add_argument("--ns", required=True)
    r.add_argument("--submit", type=int, default=0)
    r.add_argument("--hang", type=int, default=0)
    r.add_argument("--fail", type=int, default=0)
    r.add_argument("--visibility", type=int, default=2)
    r.add_argument("--max-attempts", type=int, default=3)
    r.add_argument("--retry-base", type=float, default=0.1)
    r.add_argument("--atomic-drain", action="store_true")
    pr = sub.add_parser("produce")
    pr.add_argument("--url", required=True)
    pr.add_argument("--queue", required=True)
    pr.add_argument("--count", type=int, required=True)
    pr.add_argument("--fail", type=int, default=0)
    pr.add_argument("--hang", type=int, default=0)
    pr.add_argument("--long", type=int, default=0)
    d = sub.add_parser("drain-race")
    d.add_argument("--url", required=True)
    d.add_argument("--queue", required=True)
    c = sub.add_parser("config")
    c.add_argument("--url", required=True)
    c.add_argument("--type", required=True)
    c.add_argument("--worker-id", required=True)
    c.add_argument("--set", required=True)
    c.add_argument("--force-gen", type=int)
    args = p.parse_args()
    try:
        commands = {"run": run, "config": config, "drain-race": drain_race, "produce": produce}
        asyncio.run(commands[args.cmd](args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
