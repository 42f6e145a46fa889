// Python and TypeScript workers on one Redis queue (its own database). Tasks come from both sides,
// workers are killed mid-task on both sides (a Python process by SIGKILL, TypeScript slots
// by abort), and the housekeeping sweep recovers what they held. In the end every task was
// processed-and-recorded exactly once, or sits in the dead-letter queue once; none is lost.
//
// What may legitimately run a task twice is kept out, so that any duplicate left is a defect:
// - a kill lands only while a "hang" task sleeps in its first run, never between a task's
//   done record and its ack (a worker that dies there has done the work without saying so,
//   and at-least-once delivery runs it again: correct, but indistinguishable from a bug).
//   Until 2026-12 the TS killer picked any slot holding a hang task's id, also its second,
//   normal run; issue 20's "recorded done 2x" was that kill landing after the record.
// - the upstream 0.1.0 reference drains due retries in two round trips, so a Python reserver
//   and any other reserver can push one retry twice (its own test below shows it). The Python
//   workers here use the document's atomic drain (worker.py --atomic-drain).
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Backend } from "@fleet/backend";
import { isJsonObject, parseJsonBytes, taskIdOfBody, withTaskFailure } from "@fleet/backend";
import { createHash } from "node:crypto";
import { createRedisBackend } from "@fleet/backend/redis";
import { pyReferenceSuite } from "@fleet/backend/testing/py-reference";
import {
  defineAutomation,
  encodeTaskBody,
  parseTaskBody,
  runtimeConfigShape,
  startHousekeeping,
  startMaster,
  startWorker,
  type Housekeeping,
  type Master,
  type WorkerHandle,
} from "../src/index";
import { testRedisUrl } from "@fleet/backend/testing/redis-dbs";
import { uniqueName, waitUntil } from "./helpers";

const here = path.dirname(fileURLToPath(import.meta.url));
const PY = "/usr/bin/python3";
const PY_WORKER = path.join(here, "py", "worker.py");
const url = testRedisUrl("packages/worker/test/interop-redis.test.ts");

interface PyProc {
  name: string;
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  exited: Promise<number | null>;
}

function startPython(name: string, args: string[], onLine: (p: PyProc, line: string) => void): PyProc {
  const child = spawn(PY, [PY_WORKER, ...args], { env: { ...process.env, PYTHONUNBUFFERED: "1" } });
  const proc: PyProc = { name, child, lines: [], exited: new Promise((r) => child.on("exit", (code) => r(code))) };
  createInterface({ input: child.stdout }).on("line", (line) => {
    proc.lines.push(line);
    onLine(proc, line);
  });
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
    if (err.length > 4000) err = err.slice(-4000);
  });
  child.on("exit", (code, signal) => {
    if (code !== null && code !== 0) console.error(`python ${name} exited ${code}: ${err}`);
    else if (signal && signal !== "SIGKILL" && signal !== "SIGTERM") console.error(`python ${name} died by ${signal}`);
  });
  return proc;
}

function docOf(buf: Buffer): Record<string, unknown> {
  const p = parseJsonBytes(buf);
  if (!p.ok || !isJsonObject(p.value)) throw new Error(`not a JSON object: ${buf.toString()}`);
  return p.value;
}

const pyRef = pyReferenceSuite(); // skipped, saying why, in a clone without ../shared/spec
describe.skipIf(pyRef.skip)(pyRef.title("interop: Python and TypeScript workers share one queue through real Redis"), () => {
  let backend: Backend;
  const pys: PyProc[] = [];
  const tsWorkers: WorkerHandle[] = [];
  let hk: Housekeeping | null = null;

  beforeAll(() => {
    const probe = spawnSync(PY, [PY_WORKER, "--help"], { encoding: "utf8" });
    if (probe.status !== 0) throw new Error(`cannot run ${PY} ${PY_WORKER}: ${probe.stderr}`);
    backend = createRedisBackend(url);
  });
  afterAll(async () => {
    for (const p of pys) if (p.child.exitCode === null) p.child.kill("SIGKILL");
    await Promise.all(tsWorkers.map((w) => w.kill()));
    await hk?.stop();
    await backend?.close();
  });

  it("every task ends processed exactly once or dead-lettered, across SIGKILLed Python processes and killed TS slots", async () => {
    const type = uniqueName("interop");
    const ns = uniqueName("interop-run");
    // generous, so a CI machine under load never lets a healthy reservation expire mid-task
    const visibility = 4;

    const hangIds = new Set<string>();
    // TS slots sleeping in a hang task's first run: the only ones the killer may kill
    const hanging = new Set<string>();
    const failIds = new Set<string>();
    const allIds = new Set<string>();
    let pyKills = 0;
    let tsSlotKills = 0;
    let tsLateAcks = 0;
    let pyCount = 0;
    // evidence: who did what to which task, when (printed for any task that goes wrong)
    const t0 = Date.now();
    const timeline: { t: number; id: string | null; what: string }[] = [];
    const note = (id: string | null, what: string) => timeline.push({ t: Date.now() - t0, id, what });

    const onPyLine = (p: PyProc, line: string) => {
      const [what, rest] = line.split(" ", 2);
      if (what !== "SUBMITTED" && what !== "READY") note(rest?.split(" ")[0] ?? null, `${p.name} ${line}`);
      if (what === "HANG") {
        // the process is mid-task, holding a reservation: kill it hard, as a host dies
        pyKills++;
        p.child.kill("SIGKILL");
        if (pyKills < 8)
          pys.push(startPython(`py-${++pyCount}`, ["run", "--url", url, "--queue", type, "--ns", ns, "--visibility", String(visibility), "--atomic-drain"], onPyLine));
      } else if (what === "SUBMITTED" && rest) {
        const ids = rest.split(",");
        // mirrors worker.py's submit: the first `hang` are hang tasks, the next `fail` fail
        ids.forEach((id, i) => {
          allIds.add(id);
          if (i < 2) hangIds.add(id);
          else if (i < 5) failIds.add(id);
        });
      }
    };

    const push = async (payload: Record<string, unknown>, priority: "high" | "normal" | "low") => {
      const { id, body } = encodeTaskBody(payload);
      await backend.queuePush(type, body, { priority });
      allIds.add(id);
      if (payload.hang) hangIds.add(id);
      if (payload.fail) failIds.add(id);
      return id;
    };

    // 1. a hang task at the head of the high list, then Python A: it submits 40 tasks (2 hang, 3 fail),
    //    reserves the hang task first, and is SIGKILLed holding it
    const firstHang = await push({ n: -1, src: "ts", hang: true, fail: false }, "high");
    const a = startPython(
      "py-a",
      ["run", "--url", url, "--queue", type, "--ns", ns, "--visibility", String(visibility), "--atomic-drain", "--submit", "40", "--hang", "2", "--fail", "3"],
      onPyLine,
    );
    pys.push(a);
    await waitUntil(() => a.lines.includes(`HANG ${firstHang}`), 20_000, "python A to hang on the first task");
    await a.exited;
    expect(a.child.signalCode).toBe("SIGKILL");
    expect(allIds.size).toBe(41);

    // 2. TypeScript submits 40 more (2 hang, 3 fail), then two TS workers and the housekeeping start
    const prios = ["high", "normal", "normal", "low"] as const;
    for (let i = 0; i < 40; i++) await push({ n: i, src: "ts", hang: i < 2, fail: i >= 2 && i < 5 }, prios[i % 4]!);
    const automation = defineAutomation({
      type,
      kind: "batch",
      config: z.object(runtimeConfigShape),
      taskPayload: z.object({ n: z.number(), src: z.string(), hang: z.boolean(), fail: z.boolean() }),
      run: async (ctx, task) => {
        note(task.id, `${ctx.workerId}/${ctx.slot} start attempts=${task.attempts}`);
        if (task.payload.hang && (await ctx.kv(ns).setNx(`hang:${task.id}`, "ts"))) {
          note(task.id, `${ctx.workerId}/${ctx.slot} HANG`);
          hanging.add(task.id);
          try {
            await ctx.sleep(3_600_000);
          } finally {
            hanging.delete(task.id);
          }
        }
        if (task.payload.fail) throw new Error(`typescript refuses task ${task.payload.n}`);
        await ctx.sleep(5 + Math.random() * 25);
        await ctx.counter(`${ns}:done:${task.id}`).incr();
        note(task.id, `${ctx.workerId}/${ctx.slot} recorded done`);
        await ctx.counter(`${ns}:by:ts`).incr();
      },
    });
    for (const wid of ["ts-1", "ts-2"]) {
      await backend.workerSetConfig(type, wid, { slots: 2, visibility_seconds: visibility, retry_base_ms: 100, max_attempts: 3 });
      const w = await startWorker({ backend, automation, workerId: wid, heartbeatMs: 500, idlePollMs: { min: 20, max: 200 } });
      w.events.on("task", (e: { id: string | null; outcome: string; acked?: boolean }) => {
        note(e.id, `${wid} outcome ${e.outcome}${e.acked === undefined ? "" : ` acked=${e.acked}`}`);
        if (e.outcome === "done" && e.acked === false) tsLateAcks++;
      });
      tsWorkers.push(w);
    }
    hk = await startHousekeeping({ backend, automations: [automation], sweepIntervalMs: 300, log: (l) => note(null, `sweep: ${l}`) });
    // kill the TS slots asleep in a hang task's first run (see the top of this file)
    const killer = setInterval(() => {
      for (const w of tsWorkers) {
        const killed = w.killBusySlots((id) => hanging.has(id));
        for (const id of killed) note(id, `${w.workerId} slot killed`);
        tsSlotKills += killed.length;
      }
    }, 20);
    try {
      await waitUntil(() => tsSlotKills >= 1, 20_000, "a TS slot to be killed mid-task");

      // 3. two Python processes join (each replaced by a fresh one when it is killed)
      for (let i = 0; i < 2; i++)
        pys.push(startPython(`py-${++pyCount}`, ["run", "--url", url, "--queue", type, "--ns", ns, "--visibility", String(visibility), "--atomic-drain"], onPyLine));

      const isSettled = async () => {
        const [d] = await backend.queueDepths([type]);
        if (!d || d.pending.total || d.processing || d.scheduled) return false;
        return (await backend.dlqLength(type)) >= failIds.size;
      };
      await waitUntil(isSettled, 120_000, "the queue to drain");
      // still settled after two more sweeps: nothing still in a process's hands
      const sweeps = hk!.sweeps;
      await waitUntil(() => hk!.sweeps >= sweeps + 2, 20_000, "two more sweeps");
      expect(await isSettled()).toBe(true);
    } finally {
      clearInterval(killer);
    }

    // every task: done exactly once, or (fail tasks) dead-lettered and never done
    const ids = [...allIds];
    expect(ids).toHaveLength(81);
    const done = await Promise.all(ids.map((id) => backend.counterGet(`${ns}:done:${id}`)));
    const dead = (await backend.dlqPeek(type, 1000)).map(docOf);
    const deadIds = new Map<string, Record<string, unknown>>();
    const deadCount = new Map<string, number>();
    for (const d of dead) {
      deadIds.set(String(d.id), d);
      deadCount.set(String(d.id), (deadCount.get(String(d.id)) ?? 0) + 1);
    }
    const problems: string[] = [];
    ids.forEach((id, i) => {
      const n = done[i]!;
      if (failIds.has(id)) {
        if (n !== 0) problems.push(`fail task ${id} recorded done ${n}x`);
        if (!deadIds.has(id)) problems.push(`fail task ${id} is not in the DLQ`);
        else if (deadCount.get(id)! > 1) problems.push(`fail task ${id} is in the DLQ ${deadCount.get(id)}x`);
      } else {
        if (n !== 1) problems.push(`task ${id} recorded done ${n}x`);
        if (deadIds.has(id)) problems.push(`task ${id} is in the DLQ`);
      }
    });
    if (process.env.INTEROP_TIMELINE) {
      const { writeFileSync } = await import("node:fs");
      writeFileSync(
        process.env.INTEROP_TIMELINE,
        `${timeline.map((e) => `${String(e.t).padStart(6)} ms ${e.id ?? "-"} ${e.what}`).join("\n")}\nDLQ ids: ${dead.map((d) => String(d.id)).join(" ")}\n`,
      );
    }
    if (problems.length) {
      const bad = new Set(problems.map((p) => /task (\w+)/.exec(p)?.[1]));
      const lines = timeline.filter((e) => (e.id === null ? e.what.startsWith("sweep") : bad.has(e.id))).map((e) => `${String(e.t).padStart(6)} ms ${e.id ?? ""} ${e.what}`);
      console.error(`interop problems:\n${problems.join("\n")}\ntimeline:\n${lines.join("\n")}`);
    }
    expect(problems).toEqual([]);
    expect([...deadIds.keys()].sort()).toEqual([...failIds].sort());
    for (const d of deadIds.values()) {
      expect(d.attempts).toBe(3);
      expect(String(d.last_error)).toMatch(/refuses task/);
    }
    // no ack came after a reservation had already been swept away (that would be a duplicate in the making)
    expect(tsLateAcks).toBe(0);
    expect(await backend.counterGet(`${ns}:lateack`)).toBe(0);
    // both sides did real work, and both kinds of kill happened
    expect(await backend.counterGet(`${ns}:by:py`)).toBeGreaterThan(0);
    expect(await backend.counterGet(`${ns}:by:ts`)).toBeGreaterThan(0);
    expect(pyKills).toBeGreaterThanOrEqual(1);
    expect(tsSlotKills).toBeGreaterThanOrEqual(1);
    expect(hangIds.size).toBe(5);
    console.info(
      `interop: ${ids.length} tasks, ${await backend.counterGet(`${ns}:by:py`)} done by Python, ${await backend.counterGet(`${ns}:by:ts`)} by TS, ` +
        `${deadIds.size} dead-lettered (${dead.length} DLQ entries), ${pyKills} Python SIGKILLs, ${tsSlotKills} TS slot kills`,
    );
  }, 180_000);

  it("a Python producer, Python and TS workers and the TS master: odd ids, big integers, long tasks, kills; every task acked once or dead-lettered once, its bytes unchanged but for attempts and last_error", async () => {
    const type = uniqueName("interop-mixed");
    const ns = uniqueName("interop-mixed-run");
    const visibility = 2;
    const sha = (b: Buffer) => createHash("sha1").update(b).digest("hex");
    const master: Master = await startMaster({ backend, automations: [], catalog: "none", lockName: uniqueName("interop-master"), sweepIntervalMs: 300, holdSeconds: 3 });
    try {
      expect(master.isLeader).toBe(true);

      // 1. the Python producer writes 36 bodies as json.dumps does: ids 2^64+i, 0.5, 7.0, 1e-07, -(2^53+i), non-ASCII strings
      const originals = new Map<string, Buffer>(); // task id (the shared rule) -> bytes as produced
      const bySha = new Map<string, Buffer>();
      const producer = startPython("py-producer", ["produce", "--url", url, "--queue", type, "--count", "36", "--hang", "3", "--fail", "4", "--long", "4"], (_p, line) => {
        const [what, b64] = line.split(" ");
        if (what !== "BODY" || !b64) return;
        const body = Buffer.from(b64, "base64");
        const id = taskIdOfBody(body);
        if (id === null) throw new Error(`the shared rule found no id in ${body.toString()}`);
        originals.set(id, body);
        bySha.set(sha(body), body);
      });
      expect(await producer.exited).toBe(0);
      expect(originals.size).toBe(36);
      const kind = (id: string) => parseTaskBody(originals.get(id)!)!.payload as { hang: boolean; fail: boolean; long: boolean };
      const ids = [...originals.keys()];
      const failIds = new Set(ids.filter((id) => kind(id).fail));
      const longIds = new Set(ids.filter((id) => kind(id).long));
      expect(ids).toContain("18446744073709551616"); // 2**64 + 0, kept exactly
      expect(ids).toContain("4e-07"); // (3 + 1) * 1e-07, in exponent form as Python prints it
      expect(ids).toContain("2.0");

      // 2. TypeScript workers (long tasks outlive the visibility window twice over; hang tasks are killed in their first run)
      const hanging = new Set<string>();
      const tsDeliveries: Array<{ id: string; raw: Buffer }> = [];
      const automation = defineAutomation({
        type,
        kind: "batch",
        config: z.object(runtimeConfigShape),
        taskPayload: z.object({ n: z.number(), hang: z.boolean(), fail: z.boolean(), long: z.boolean() }).passthrough(),
        run: async (ctx, task) => {
          tsDeliveries.push({ id: task.id, raw: Buffer.from(task.raw) });
          if (task.payload.hang && (await ctx.kv(ns).setNx(`hang:${task.id}`, "ts"))) {
            hanging.add(task.id);
            try {
              await ctx.sleep(3_600_000);
            } finally {
              hanging.delete(task.id);
            }
          }
          if (task.payload.fail) throw new Error(`typescript refuses task ${task.payload.n}`);
          if (task.payload.long) await ctx.sleep(visibility * 2500);
          await ctx.counter(`${ns}:done:${task.id}`).incr();
        },
      });
      const workers: WorkerHandle[] = [];
      for (const wid of ["ts-a", "ts-b"]) {
        await backend.workerSetConfig(type, wid, { slots: 2, visibility_seconds: visibility, retry_base_ms: 100, max_attempts: 3 });
        const w = await startWorker({ backend, automation, workerId: wid, heartbeatMs: 500 });
        workers.push(w);
        tsWorkers.push(w);
      }
      let tsKills = 0;
      const killer = setInterval(() => {
        for (const w of workers) tsKills += w.killBusySlots((id) => hanging.has(id)).length;
      }, 20);

      // 3. Python workers (SIGKILLed on a hang, replaced)
      const pyStarts: Array<{ id: string; attempts: number; sha: string }> = [];
      let pyKills = 0;
      const onLine = (p: PyProc, line: string) => {
        const [what, id, attempts, digest] = line.split(" ");
        if (what === "START") pyStarts.push({ id: id!, attempts: Number(attempts), sha: digest! });
        if (what === "HANG") {
          pyKills++;
          p.child.kill("SIGKILL");
          pys.push(startPython(`py-m${pyKills}`, ["run", "--url", url, "--queue", type, "--ns", ns, "--visibility", String(visibility), "--atomic-drain"], onLine));
        }
      };
      for (let i = 0; i < 2; i++)
        pys.push(startPython(`py-m-start${i}`, ["run", "--url", url, "--queue", type, "--ns", ns, "--visibility", String(visibility), "--atomic-drain"], onLine));

      try {
        const settled = async () => {
          const [d] = await backend.queueDepths([type]);
          if (!d || d.pending.total || d.processing || d.scheduled) return false;
          return (await backend.dlqLength(type)) >= failIds.size;
        };
        await waitUntil(settled, 150_000, "the mixed queue to drain");
        const sweeps = master.sweeps;
        await waitUntil(() => master.sweeps >= sweeps + 2, 20_000, "two more sweeps");
        expect(await settled()).toBe(true);
      } finally {
        clearInterval(killer);
      }

      const problems: string[] = [];
      // every task: done exactly once, or dead-lettered exactly once and never done
      const done = await Promise.all(ids.map((id) => backend.counterGet(`${ns}:done:${id}`)));
      const dead = await backend.dlqPeek(type, 1000);
      const deadCount = new Map<string, number>();
      for (const body of dead) {
        const id = taskIdOfBody(body);
        if (id === null) {
          problems.push(`a dead letter without an id: ${body.toString()}`);
          continue;
        }
        deadCount.set(id, (deadCount.get(id) ?? 0) + 1);
        // its bytes: the original with attempts and last_error spliced in, nothing else
        const env = parseTaskBody(body)!;
        const expected = withTaskFailure(originals.get(id)!, 3, String(env.lastError));
        if (!expected?.equals(body)) problems.push(`dead letter ${id} changed beyond attempts/last_error: ${body.toString()}`);
      }
      ids.forEach((id, i) => {
        if (failIds.has(id)) {
          if (done[i] !== 0) problems.push(`fail task ${id} recorded done ${done[i]}x`);
          if (deadCount.get(id) !== 1) problems.push(`fail task ${id} is in the DLQ ${deadCount.get(id) ?? 0}x`);
        } else {
          if (done[i] !== 1) problems.push(`task ${id} recorded done ${done[i]}x`);
          if (deadCount.has(id)) problems.push(`task ${id} is in the DLQ`);
        }
      });
      // every TS delivery: the produced bytes, or those bytes with attempts and last_error spliced in
      for (const { id, raw } of tsDeliveries) {
        const env = parseTaskBody(raw)!;
        const original = originals.get(id);
        const expected = !original ? null : env.attempts === 0 && env.lastError === null ? original : withTaskFailure(original, env.attempts, String(env.lastError));
        if (!expected?.equals(raw)) problems.push(`TS got task ${id} as ${raw.toString()}`);
      }
      // every first Python delivery: the produced bytes, and Python's id is the shared rule's
      for (const s of pyStarts.filter((x) => x.attempts === 0)) {
        const original = bySha.get(s.sha);
        if (!original) problems.push(`Python got task ${s.id} in bytes never produced`);
        else if (taskIdOfBody(original) !== s.id) problems.push(`Python calls task ${taskIdOfBody(original)} '${s.id}'`);
      }
      // a long task ran once: its lease was kept, not swept
      for (const id of longIds) {
        const runs = tsDeliveries.filter((d) => d.id === id).length + pyStarts.filter((d) => d.id === id).length;
        if (runs !== 1) problems.push(`long task ${id} ran ${runs}x`);
      }
      expect(problems).toEqual([]);
      expect(workers.reduce((n, w) => n + w.snapshot().leasesLost, 0)).toBe(0);
      expect(tsDeliveries.length).toBeGreaterThan(0);
      expect(pyStarts.length).toBeGreaterThan(0);
      expect(pyKills + tsKills).toBeGreaterThanOrEqual(1);
    } finally {
      await master.stop();
    }
  }, 240_000);

  it("the upstream 0.1.0 reference can push a due retry that another reserver already took (its drain is two round trips)", async () => {
    const type = uniqueName("interop-drain");
    const { id, body } = encodeTaskBody({ n: 1 });
    await backend.queuePush(type, body);
    expect(await backend.queueReserve(type, 0, 30)).not.toBeNull();
    await backend.queueNack(type, id, body, { delaySeconds: 0.001 });
    await waitUntil(async () => (await backend.queueDepths([type]))[0]?.due === 1, 5000, "the retry to be due");

    // Python reads the due retry and stops before its second round trip...
    const py = startPython("py-drain", ["drain-race", "--url", url, "--queue", type], () => {});
    await waitUntil(() => py.lines.includes("READ 1"), 15_000, "the reference to read the due retry");
    // ...the TypeScript reserve drains and takes it in one script meanwhile...
    const taken = await backend.queueReserve(type, 0, 30);
    expect(taken?.equals(body)).toBe(true);
    // ...then the reference pushes what it read: the task is pending AND reserved
    py.child.stdin.write("\n");
    await waitUntil(() => py.lines.includes("PUSHED"), 15_000, "the reference to finish its drain");
    await py.exited;
    const [depth] = await backend.queueDepths([type]);
    expect(depth).toMatchObject({ processing: 1 });
    expect(depth!.pending.total).toBe(1);
    const pending = await backend.queuePeek(type, 10);
    expect(pending.map((b) => b.toString())).toEqual([body.toString()]);
  }, 60_000);

  it("a config generation written by Python is applied by a TS worker; a stale one is ignored", async () => {
    const type = uniqueName("interop-cfg");
    const automation = defineAutomation({
      type,
      kind: "continuous",
      config: z.object(runtimeConfigShape),
      run: async (ctx) => ctx.sleep(50),
    });
    const w = await startWorker({ backend, automation, workerId: "ts-cfg", heartbeatMs: 60_000, configPollMs: 3_600_000 });
    tsWorkers.push(w);
    const py = (args: string[]) => {
      const r = spawnSync(PY, [PY_WORKER, "config", "--url", url, "--type", type, "--worker-id", "ts-cfg", ...args], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(r.stderr);
      return Number(/GEN (\d+)/.exec(r.stdout)?.[1]);
    };
    expect(py(["--set", '{"slots": 2}'])).toBe(1);
    expect(py(["--set", '{"slots": 3}'])).toBe(2);
    await w.waitFor((s) => s.configGen === 2 && s.slotsTarget === 3 && s.slotsRunning === 3, 20_000);

    // a stale master writes generation 1 and announces it: the announcement and the poll both ignore it
    const ignored = w.snapshot().configsIgnored;
    expect(py(["--set", '{"slots": 7}', "--force-gen", "1"])).toBe(1);
    await w.waitFor((s) => s.configsIgnored >= ignored + 1, 20_000);
    expect(await w.refreshConfig()).toBe(false);
    expect(w.snapshot()).toMatchObject({ configGen: 2, slotsTarget: 3 });

    // the next real write (INCR from 1 = 2) is still not newer; one more is
    const ignoredBefore = w.snapshot().configsIgnored;
    expect(py(["--set", '{"slots": 4}'])).toBe(2);
    // its announcement arrived and was ignored (not "nothing happened for a while")
    await w.waitFor((s) => s.configsIgnored >= ignoredBefore + 1, 20_000);
    expect(w.snapshot()).toMatchObject({ configGen: 2, slotsTarget: 3 });
    expect(py(["--set", '{"slots": 1}'])).toBe(3);
    await w.waitFor((s) => s.configGen === 3 && s.slotsTarget === 1 && s.slotsRunning === 1, 20_000);
  }, 120_000);
});
