"""The Python reference's way of reading a whole fleet, for `pnpm bench:scale` (issue 11,
point 6): worker_list(), then worker_get() for each worker, one by one, exactly as a Python
tool built on Fleet's backend.py does. It imports the reference itself (backend.py at
$FLEET_PY_BACKEND: the file, a directory holding it or a fleet-framework checkout; default
../shared/spec beside the repository), never a copy.

usage: py-workers.py REDIS_URL [ROUNDS]
prints one JSON object: {"workers": n, "seconds": [per round], "digest": sha1 of the sorted
"type|id|state|last_seen" lines}, so the bench can check the console read the same fleet.
"""
from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import os
import sys
import time
from pathlib import Path


def load_reference():
    repo_root = Path(__file__).resolve().parents[3]  # apps/web/bench/py-workers.py -> repo root
    where = Path(os.environ.get("FLEET_PY_BACKEND") or repo_root.parent / "shared" / "spec")
    candidates = [where, where / "backend.py", where / "fleet" / "core" / "backend.py"]
    path = next((c for c in candidates if c.is_file()), None)
    if path is None:
        sys.exit(f"py-workers: no backend.py in {where} (set FLEET_PY_BACKEND)")
    spec = importlib.util.spec_from_file_location("fleet_reference_backend", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod, path


async def read_all(b) -> tuple[int, str]:
    lines = []
    for at, wid in await b.worker_list():
        w = await b.worker_get(at, wid)
        if w is not None:
            lines.append(f"{at}|{wid}|{w['state']}|{w['last_seen']:.6f}")
    lines.sort()
    return len(lines), hashlib.sha1("\n".join(lines).encode("utf-8")).hexdigest()


async def main() -> None:
    url = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    mod, path = load_reference()
    b = mod.RedisBackend(url)
    seconds = []
    n, digest = 0, ""
    for _ in range(rounds):
        t0 = time.perf_counter()
        n, digest = await read_all(b)
        seconds.append(time.perf_counter() - t0)
    await b.aclose()
    print(json.dumps({"workers": n, "seconds": seconds, "digest": digest, "reference": str(path)}))


asyncio.run(main())
