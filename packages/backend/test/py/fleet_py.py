"""Drives the upstream Python reference (backend.py of fleet-framework) for the
cross-language tests. It is imported from $FLEET_PY_BACKEND (default: ../shared/spec
relative to the repository root), never copied into this project.

usage: fleet_py.py write|read|release|ack|ops REDIS_URL   (JSON on stdin, JSON on stdout)

  write    performs the writes the spec lists, then prints {"result": ..., "view": ...}
  read     prints {"view": ...}: everything the reference reads back for the spec's names
  release  {"tokens": {lock: token}} -> {"released": {lock: bool}}
  ack      {"queue": name, "ids": [...]} -> {"acked": [bool, ...]}
  ops      {"ops": [{"op": ..., ...}, ...]} -> {"results": [{"ok": value} | {"error": "Type: message"}, ...]}:
           single reference calls, each run on its own, an exception reported rather than raised
           (see OPS below)

Bytes travel as base64 ("..._b64" keys); everything else as plain JSON.
"""
from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
import os
import sys
import time as real_time
from pathlib import Path


def load_reference():
    here = Path(__file__).resolve()
    repo_root = here.parents[4]  # packages/backend/test/py/fleet_py.py -> repo root
    spec_dir = Path(os.environ.get("FLEET_PY_BACKEND") or repo_root.parent / "shared" / "spec")
    # the file itself (what test/py-reference.ts passes), a directory holding backend.py,
    # or a fleet-framework checkout (fleet/core/backend.py)
    candidates = [spec_dir, spec_dir / "backend.py", spec_dir / "fleet" / "core" / "backend.py"]
    path = next((c for c in candidates if c.is_file()), None)
    if path is None:
        sys.exit(f"fleet_py: no backend.py in {spec_dir} or {spec_dir / 'fleet' / 'core'} (set FLEET_PY_BACKEND)")
    spec = importlib.util.spec_from_file_location("fleet_reference_backend", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the class is built
    spec.loader.exec_module(mod)
    return mod


def b64(b: bytes | None):
    return None if b is None else base64.b64encode(b).decode("ascii")


def unb64(s: str) -> bytes:
    return base64.b64decode(s)


def freeze_time(mod, at: float) -> None:
    """pool_put and friends call time.time(); the byte comparison needs a fixed clock."""

    class Frozen:
        @staticmethod
        def time() -> float:
            return at

        monotonic = staticmethod(real_time.monotonic)

    mod.time = Frozen


async def write(b, spec: dict) -> dict:
    result: dict = {"reserved": {}, "locks": {}, "claims": {}}
    for w in spec.get("workers", []):
        at, wid = w["type"], w["id"]
        await b.worker_register(at, wid, w["hardware"])
        if "config" in w:
            await b.worker_set_config(at, wid, w["config"])
        if "state" in w:
            s = w["state"]
            await b.worker_set_state(at, wid, s["state"], s["last_error"], s["last_seen"])
        if "stats" in w:
            await b.worker_set_stats(at, wid, w["stats"])
        for ts, frame in w.get("history", []):
            await b.worker_stats_push(at, wid, ts, frame)
    for q in spec.get("queues", []):
        name = q["name"]
        for item in q.get("push", []):
            await b.queue_push(name, unb64(item["body_b64"]), priority=item.get("priority", 0))
        reserved = []
        for _ in range(q.get("reserve", 0)):
            body = await b.queue_reserve(name, 0.5, q.get("visibility", 30))
            reserved.append(b64(body))
        result["reserved"][name] = reserved
        for n in q.get("nack", []):
            await b.queue_nack(name, n["id"], unb64(n["body_b64"]), delay_seconds=n["delay"])
        for body in q.get("dead", []):
            await b.queue_dead(name, unb64(body))
    for p in spec.get("pools", []):
        for item in p["items"]:
            await b.pool_put(p["name"], item["id"], unb64(item["payload_b64"]), item["tags"], item.get("ttl"))
        claimed = []
        for c in p.get("claims", []):
            got = await b.pool_claim_any(p["name"], c["where"], c["hold"])
            claimed.append(None if got is None else got.id)
        result["claims"][p["name"]] = claimed
    for s in spec.get("streams", []):
        for e in s["entries"]:
            await b.stream_push(
                s["name"], unb64(e["envelope_b64"]), score=e["score"], max_len=s["max_len"], ttl_seconds=s["ttl"]
            )
    for lk in spec.get("locks", []):
        result["locks"][lk["name"]] = await b.lock_acquire(lk["name"], lk["hold"], 0)
    for c in spec.get("counters", []):
        if "set" in c:
            await b.counter_set(c["name"], c["set"])
        if "incr" in c:
            await b.counter_incr(c["name"], c["incr"])
    for kv in spec.get("kv", []):
        await b.kv_set(kv["ns"], kv["key"], unb64(kv["value_b64"]), kv.get("ttl"))
    for at, doc in spec.get("catalog", {}).items():
        await b.catalog_set(at, doc.encode("utf-8"))
    return result


async def view(b, spec: dict) -> dict:
    """Everything the reference reads back for the names in the spec."""
    r = b.r
    out: dict = {"workers": {}, "worker_lists": {}, "queues": {}, "pools": {}, "streams": {}, "locks": {}, "counters": {}, "kv": {}}
    for w in spec.get("workers", []):
        at, wid = w["type"], w["id"]
        cfg, gen = await b.worker_get_config(at, wid)
        out["workers"][f"{at}|{wid}"] = {
            "get": await b.worker_get(at, wid),
            "config": cfg,
            "gen": gen,
            "history": await b.worker_stats_history(at, wid),
        }
        out["worker_lists"][at] = sorted(wid for _, wid in await b.worker_list(at))
    types = {w["type"] for w in spec.get("workers", [])}
    out["all_workers"] = sorted(f"{at}|{wid}" for at, wid in await b.worker_list() if at in types)
    for q in spec.get("queues", []):
        name = q["name"]
        proc = await r.zrange(b.QUEUE_PROCESSING.format(name=name), 0, -1, withscores=True)
        bodies = await r.hgetall(b.QUEUE_PROCESSING_BODY.format(name=name))
        sched = await r.zrange(b.QUEUE_SCHEDULED.format(name=name), 0, -1, withscores=True)
        out["queues"][name] = {
            "size": await b.queue_size(name),
            "peek": [b64(x) for x in await b.queue_peek(name, 100)],
            "high": [b64(x) for x in await r.lrange(b.QUEUE_HIGH.format(name=name), 0, -1)],
            "normal": [b64(x) for x in await r.lrange(b.QUEUE_KEY.format(name=name), 0, -1)],
            "low": [b64(x) for x in await r.lrange(b.QUEUE_LOW.format(name=name), 0, -1)],
            "processing": [[m.decode("utf-8"), s, b64(bodies.get(m))] for m, s in proc],
            "scheduled": [[b64(m), s] for m, s in sched],
            "dead": [b64(x) for x in await b.dlq_peek(name, 100)],
            "dead_length": await b.dlq_length(name),
        }
    for p in spec.get("pools", []):
        items = sorted(await b.pool_list(p["name"]), key=lambda it: it.id)
        out["pools"][p["name"]] = {
            "size": await b.pool_size(p["name"]),
            "items": [
                {
                    "id": it.id,
                    "payload_b64": b64(it.payload),
                    "tags": it.tags,
                    "expires_at": it.expires_at,
                    "in_use_until": it.in_use_until,
                }
                for it in items
            ],
        }
    for s in spec.get("streams", []):
        key = b.STREAM_KEY.format(name=s["name"])
        out["streams"][s["name"]] = {
            "length": await b.stream_length(s["name"]),
            "peek": [b64(x) for x in await b.stream_peek(s["name"], 100)],
            "scores": [sc for _, sc in await r.zrange(key, 0, -1, withscores=True)],
        }
    for lk in spec.get("locks", []):
        key = b.LOCK_KEY.format(name=lk["name"])
        raw = await r.get(key)
        out["locks"][lk["name"]] = {"token": raw.decode("utf-8") if raw else None, "pttl": await r.pttl(key)}
    for c in spec.get("counters", []):
        out["counters"][c["name"]] = await b.counter_get(c["name"])
    for kv in spec.get("kv", []):
        k = b.KV_KEY.format(ns=kv["ns"], key=kv["key"])
        out["kv"][f"{kv['ns']}:{kv['key']}"] = {"value_b64": b64(await b.kv_get(kv["ns"], kv["key"])), "pttl": await r.pttl(k)}
    catalog = await b.catalog_all()
    out["catalog"] = {k: v.decode("utf-8") for k, v in catalog.items() if k in spec.get("catalog", {})}
    return out


async def release_locks(b, tokens: dict) -> dict:
    return {name: await b.lock_release(name, token) for name, token in tokens.items()}


async def ack(b, queue: str, ids: list) -> list:
    return [await b.queue_ack(queue, task_id) for task_id in ids]


async def op_reserve_each(b, o: dict):
    """Each body alone on queue "<prefix>:<i>", reserved once: what the reference registers for it."""
    out = []
    for i, body in enumerate(o["bodies_b64"]):
        name = f"{o['queue_prefix']}:{i}"
        await b.queue_push(name, unb64(body))
        try:
            got = await b.queue_reserve(name, 0.1, 30)
        except Exception as e:  # noqa: BLE001 - reported, as the caller compares outcomes
            out.append({"error": f"{type(e).__name__}: {e}"})
            continue
        registered = await b.r.hgetall(b.QUEUE_PROCESSING_BODY.format(name=name))
        out.append({
            "body_b64": b64(got),
            "registered": {k.decode("utf-8", "surrogateescape"): b64(v) for k, v in registered.items()},
        })
    return out


async def op_sweep(b, o: dict):
    """The reference's own sweep of expired reservations, at the given time."""
    return await b.queue_sweep_expired(o["queue"], o["now"])


async def op_retry_body(b, o: dict):
    """The body as a Python runtime re-encodes it after a failure: a dict update, then json.dumps."""
    envelope = json.loads(unb64(o["body_b64"]).decode("utf-8"))
    envelope["attempts"] = o["attempts"]
    envelope["last_error"] = o["last_error"]
    return b64(json.dumps(envelope).encode("utf-8"))


async def op_get_config(b, o: dict):
    cfg, gen = await b.worker_get_config(o["type"], o["id"])
    return {"config": cfg, "gen": gen}


async def op_worker_get(b, o: dict):
    return await b.worker_get(o["type"], o["id"])


async def op_stats_history(b, o: dict):
    return await b.worker_stats_history(o["type"], o["id"])


async def op_pool_put(b, o: dict):
    await b.pool_put(o["name"], o["id"], unb64(o["payload_b64"]), o["tags"], o.get("ttl"))
    return sorted(k.decode("utf-8") for k in await b.r.hkeys(b.POOL_HASH.format(name=o["name"])))


async def op_pool_claim(b, o: dict):
    got = await b.pool_claim_any(o["name"], o.get("where", {}), o["hold"])
    return None if got is None else got.id


async def op_pool_list(b, o: dict):
    return [it.id for it in await b.pool_list(o["name"])]


async def op_counter_set(b, o: dict):
    await b.counter_set(o["name"], o["value"])
    return b64(await b.r.get(b.COUNTER_KEY.format(name=o["name"])))


async def op_hset(b, o: dict):
    """Raw writes for planting exactly what a test needs."""
    await b.r.hset(o["key"], o["field"], unb64(o["value_b64"]))


async def op_set(b, o: dict):
    await b.r.set(o["key"], unb64(o["value_b64"]))


async def op_worker_register(b, o: dict):
    await b.worker_register(o["type"], o["id"], o["hardware"])


async def op_worker_set_stats(b, o: dict):
    await b.worker_set_stats(o["type"], o["id"], o["stats"])


async def op_worker_stats_push(b, o: dict):
    await b.worker_stats_push(o["type"], o["id"], o["ts"], o["frame"])


OPS = {
    "reserve_each": op_reserve_each,
    "retry_body": op_retry_body,
    "sweep": op_sweep,
    "get_config": op_get_config,
    "worker_get": op_worker_get,
    "stats_history": op_stats_history,
    "pool_put": op_pool_put,
    "pool_claim": op_pool_claim,
    "pool_list": op_pool_list,
    "counter_set": op_counter_set,
    "hset": op_hset,
    "set": op_set,
    "worker_register": op_worker_register,
    "worker_set_stats": op_worker_set_stats,
    "worker_stats_push": op_worker_stats_push,
}


async def run_ops(b, ops: list) -> list:
    results = []
    for o in ops:
        try:
            results.append({"ok": await OPS[o["op"]](b, o)})
        except Exception as e:  # noqa: BLE001 - the caller asserts on the reference's failures too
            results.append({"error": f"{type(e).__name__}: {e}"})
    return results


async def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "read", "release", "ack", "ops"):
        sys.exit(__doc__)
    command, url = sys.argv[1], sys.argv[2]
    spec = json.loads(sys.stdin.read())
    mod = load_reference()
    if spec.get("frozen_time") is not None:
        freeze_time(mod, float(spec["frozen_time"]))
    b = mod.RedisBackend(url)
    try:
        if command == "write":
            result = await write(b, spec)
            print(json.dumps({"result": result, "view": await view(b, spec)}))
        elif command == "read":
            print(json.dumps({"view": await view(b, spec)}))
        elif command == "release":
            print(json.dumps({"released": await release_locks(b, spec["tokens"])}))
        elif command == "ops":
            # NaN and Infinity travel as Python writes them (json.dumps' default allow_nan)
            print(json.dumps({"results": await run_ops(b, spec["ops"])}))
        else:
            print(json.dumps({"acked": await ack(b, spec["queue"], spec["ids"])}))
    finally:
        await b.r.close()


if __name__ == "__main__":
    asyncio.run(main())
