// `fleet` end to end: the CLI runs as its own process against a real console (`next start` of
// the production build, API tokens of each role) over a real Redis, and every command is
// checked for its output, its --json (parsed with @fleet/schema), and its exit code. No run
// may print a token, whatever it does.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

import type { Backend } from "@fleet/backend";
import { RedisBackend } from "@fleet/backend/redis";
import { backendFromUrl } from "@fleet/backend/url";
import {
  BulkJobSchema,
  BulkJobsSchema,
  ConfigResultSchema,
  QueueDetailSchema,
  QueueListSchema,
  SearchMatchLineSchema,
  WorkerDetailSchema,
  WorkerListSchema,
  type Role,
} from "@fleet/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { COMMANDS } from "../src/cli";
import { EXIT } from "../src/exit-codes";
import { freePort, redisUrl, runCli, spawnCli, startConsole, type CliResult, type RunningConsole } from "./console";

let console_: RunningConsole;
let backend: Backend;
const prefix = `cli-${randomBytes(4).toString("hex")}-`;
const TYPE = `${prefix}scraper`;
const secrets: string[] = [];

const CONFIG_SCHEMA = {
  type: "object",
  properties: { slots: { type: "integer", minimum: 1, maximum: 8 }, mode: { type: "string" } },
};

/** Runs fleet as `role` (or with no token) and checks that no token shows anywhere in what it printed. */
async function fleet(args: string[], as: Role | null = "admin", opts: { input?: string; cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const c = running();
  const env: Record<string, string | undefined> = { FLEET_URL: c.url, ...(as ? { FLEET_TOKEN: c.tokens[as] } : {}), ...opts.env };
  const res = await runCli(args, env, opts);
  for (const s of secrets) {
    expect(res.stdout, `fleet ${args.join(" ")} printed a token`).not.toContain(s);
    expect(res.stderr, `fleet ${args.join(" ")} printed a token`).not.toContain(s);
  }
  return res;
}

function jsonOf(res: CliResult): unknown {
  expect(res.code, res.stderr).toBe(EXIT.OK);
  return JSON.parse(res.stdout);
}

async function purge(b: Backend): Promise<void> {
  if (!(b instanceof RedisBackend)) return;
  await b.health();
  const r = b.client;
  // the bulk jobs of this suite's queues (their keys are the console's, named by job id)
  const ids = await b.bulkJobIds(200);
  const mine = (await b.bulkJobGet(ids)).filter((j) => j?.doc?.toString("utf8").includes(prefix)).map((j) => j!.id);
  if (mine.length > 0)
    await r
      .multi()
      .unlink(...mine.flatMap((id) => [`fleet:console:bulk:job:${id}`, `fleet:lock:fleet-console-bulk-audited:${id}`]))
      .zrem("fleet:console:bulk:jobs", ...mine)
      .exec();
  for (const [cmd, key] of [
    ["scan", ""],
    ["sscan", "wkrs:all"],
    ["hscan", "fleet:catalog"],
  ] as const) {
    let cursor = "0";
    do {
      if (cmd === "scan") {
        const [next, found] = await r.scan(cursor, "MATCH", `*${prefix}*`, "COUNT", 1000);
        if (found.length > 0) await r.unlink(...found);
        cursor = next;
      } else if (cmd === "sscan") {
        const [next, found] = await r.sscan(key, cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
        if (found.length > 0) await r.srem(key, ...found);
        cursor = next;
      } else {
        const [next, flat] = await r.hscan(key, cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
        const fields = flat.filter((_, i) => i % 2 === 0);
        if (fields.length > 0) await r.hdel(key, ...fields);
        cursor = next;
      }
    } while (cursor !== "0");
  }
}

const task = (n: number, payload: unknown) => JSON.stringify({ id: String(n).padStart(32, "0"), payload });

/** Why the console did not start (no build, no Redis): every test fails with it, none is skipped. */
let startError: unknown = null;

function running(): RunningConsole {
  if (startError) throw startError;
  return console_;
}

beforeAll(async () => {
  try {
    await setUp();
  } catch (err) {
    startError = err;
  }
}, 240_000);

async function setUp(): Promise<void> {
  backend = backendFromUrl(redisUrl());
  await purge(backend);
  // an hour before a silent worker counts as offline: a slow machine must not turn the live ones offline mid-suite
  console_ = await startConsole({ backendUrl: redisUrl(), env: { FLEET_OFFLINE_AFTER_SECONDS: "3600" } });
  secrets.push(...Object.values(console_.tokens));
  const now = Date.now() / 1000;
  await backend.catalogSet(TYPE, JSON.stringify({ config: CONFIG_SCHEMA, output: null, task_payload: null }));
  for (const [id, state, seenAgo, err] of [
    ["w-1", "RUNNING", 0, null],
    ["w-2", "ERROR", 0, "Timeout after 30 s"],
    ["w-3", "IDLE", 7 * 86400, null],
  ] as const) {
    await backend.workerRegister(TYPE, id, { hostname: `${id}.cli.test`, cpus: 2 });
    await backend.workerSetState(TYPE, id, state, err, now - seenAgo);
    await backend.workerSetConfig(TYPE, id, { slots: 2 });
  }
  await backend.queuePushMany(TYPE, [{ body: task(1, { url: "https://a.example/1" }), priority: "high" }, { body: task(2, { url: "https://a.example/2" }) }]);
  await backend.queueDead(TYPE, task(7, { url: "https://a.example/7", note: "HTTP 503 from upstream" }));
  await backend.queueDead(TYPE, task(8, { url: "https://a.example/8", note: "parse error" }));
  await backend.queueDead(TYPE, task(9, { url: "https://a.example/9", note: "parse error again" }));
}

afterAll(async () => {
  await console_?.stop();
  if (backend) {
    await purge(backend);
    await backend.close();
  }
});

describe("help and usage", () => {
  it("--help of the CLI, of each group and of each command exits 0 and shows its usage", async () => {
    const top = await fleet(["--help"], null);
    expect(top.code).toBe(EXIT.OK);
    expect(top.stdout).toContain("usage: fleet <command>");
    expect(top.stdout).toMatch(/Exit codes:[\s\S]*4 {2}conflict/);
    for (const group of ["workers", "queues", "dead", "bulk", "config"]) {
      const g = await fleet([group, "--help"], null);
      expect(g.code, group).toBe(EXIT.OK);
      expect(g.stdout).toContain(`usage: fleet ${group} <command>`);
    }
    for (const cmd of COMMANDS) {
      const words = cmd.words;
      const res = await fleet([...words, "--help"], null);
      expect(res.code, words.join(" ")).toBe(EXIT.OK);
      expect(res.stdout).toContain(`usage: fleet ${words.join(" ")}`);
      for (const option of Object.keys(cmd.options)) expect(res.stdout, `${words.join(" ")} --${option}`).toContain(`--${option}`);
    }
    const viaHelp = await fleet(["help", "dead", "search"], null);
    expect(viaHelp.stdout).toContain("GET /queues/{name}/search?in=dead");
    // one process per command (24), one after the other: a guard against hanging, sized for a loaded machine
  }, 600_000);

  it("a wrong command line exits 2 and says what is wrong", async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /usage: fleet <command>/],
      [["frobnicate"], /unknown command: frobnicate/],
      [["workers"], /which one\?/],
      [["workers", "frobnicate"], /unknown command: workers frobnicate/],
      [["workers", "list", "--bogus"], /Unknown option '--bogus'/],
      [["workers", "show", "only-type"], /missing argument/],
      [["workers", "show", "a", "b", "c"], /unexpected argument "c"/],
      [["workers", "list", "--limit", "5000"], /--limit must be between 0 and 1000/],
      [["workers", "list", "--status", "sleepy"], /--status must be one of running, idle, error, offline/],
      [["dead", "requeue", TYPE, "not-a-ref"], /not a dead-letter ref/],
      [["dead", "requeue", TYPE], /give the refs/],
      [["config", "patch", TYPE, "w-1"], /nothing to change/],
      [["config", "patch", TYPE, "w-1", "--data", "{nope"], /--data is not valid JSON/],
      [["config", "patch", TYPE, "w-1", "--data", "[1]"], /must hold a JSON object/],
      [["config", "patch", TYPE, "w-1", "--set", "slots"], /--set takes KEY=VALUE/],
      [["config", "patch", TYPE, "w-1", "--set", "slots=3", "--if-match", "abc"], /--if-match takes a config generation/],
      [["tail", "--events", "gossip"], /--events takes bus, workers, queues, pools, streams/],
      [["workers", "list", "--url", "ftp://x"], /must be an http:\/\/ or https:\/\/ URL/],
      [["workers", "list", "--timeout", "0"], /--timeout must be a positive number/],
    ];
    for (const [args, message] of cases) {
      const res = await fleet(args);
      expect(res.code, `fleet ${args.join(" ")}: ${res.stderr}`).toBe(EXIT.USAGE);
      expect(res.stderr, `fleet ${args.join(" ")}`).toMatch(message);
      expect(res.stdout, `fleet ${args.join(" ")}`).toBe("");
    }
    // 19 processes one after the other: a guard against hanging, sized for a loaded machine
  }, 600_000);

  it("a wrong search or bulk command line exits 2 and says what is wrong, before asking the console anything", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["search", TYPE, "--in", "pending,limbo"], /--in takes pending, processing, scheduled, dead \(comma-separated\), not "limbo"/],
      [["search", TYPE, "--limit", "5000"], /--limit must be between 0 and 1000/],
      [["bulk", "start", TYPE, "--text", "x", "--yes"], /--action is required: requeue-dead, delete-dead, delete-pending/],
      [["bulk", "start", TYPE, "--action", "requeue-dead", "--yes"], /give --text or --where/],
      [["bulk", "start", TYPE, "--action", "explode", "--text", "x"], /--action must be one of requeue-dead, delete-dead, delete-pending/],
      [["bulk", "start", TYPE, "--action", "requeue-dead", "--text", "x", "--yes", "--rate", "0"], /--rate must be between 1 and 10000/],
      // not on a terminal: nobody can confirm, so --yes it must be
      [["bulk", "start", TYPE, "--action", "delete-dead", "--text", "x"], /not on a terminal, so nothing can ask: add --yes/],
      [["bulk", "status", TYPE], /missing argument/],
    ];
    for (const [args, message] of cases) {
      const res = await fleet(args, "operator");
      expect(res.code, `fleet ${args.join(" ")}: ${res.stderr}`).toBe(EXIT.USAGE);
      expect(res.stderr, `fleet ${args.join(" ")}`).toMatch(message);
      expect(res.stdout, `fleet ${args.join(" ")}`).toBe("");
    }
    expect(await backend.dlqLength(TYPE)).toBe(3);
  }, 120_000);

  it("a URL with credentials, and a token that is not a token, are refused without being shown", async () => {
    const withCreds = await fleet(["workers", "list"], null, { env: { FLEET_URL: "http://user:hunter2@127.0.0.1:1" } });
    expect(withCreds.code).toBe(EXIT.USAGE);
    expect(withCreds.stderr).toMatch(/must not carry credentials/);
    expect(withCreds.stderr).not.toContain("hunter2");
    const badToken = "bad token with spaces s3cr3t";
    const res = await fleet(["workers", "list"], null, { env: { FLEET_TOKEN: badToken } });
    expect(res.code).toBe(EXIT.USAGE);
    expect(res.stderr).toMatch(/FLEET_TOKEN is not a valid API token/);
    expect(res.stderr).not.toContain("s3cr3t");
  });
});

describe("authentication", () => {
  it("no token: 5, and the message says to set FLEET_TOKEN", async () => {
    const res = await fleet(["workers", "list"], null);
    expect(res.code).toBe(EXIT.UNAUTHORIZED);
    expect(res.stderr).toMatch(/401 unauthenticated/);
    expect(res.stderr).toMatch(/set FLEET_TOKEN/);
  });

  it("tail without a token: 5 before any stream opens", async () => {
    const res = await fleet(["tail", "--count", "1"], null);
    expect(res.code).toBe(EXIT.UNAUTHORIZED);
    expect(res.stderr).toMatch(/GET \/api\/v1\/events: 401 unauthenticated/);
    expect(res.stderr).not.toContain("# connected");
  });

  it("a token the console does not know: 5, and the token is not shown", async () => {
    const wrong = `fleet-cli-test-wrong-${randomBytes(8).toString("hex")}`;
    secrets.push(wrong);
    const res = await fleet(["queues", "list"], null, { env: { FLEET_TOKEN: wrong } });
    expect(res.code).toBe(EXIT.UNAUTHORIZED);
    expect(res.stderr).toMatch(/not a token this console accepts/);
  });

  it("a role too low: 5 with the console's reason", async () => {
    const res = await fleet(["workers", "remove", TYPE, "w-1", "--yes"], "viewer");
    expect(res.code).toBe(EXIT.UNAUTHORIZED);
    expect(res.stderr).toMatch(/403 forbidden: This needs the admin role/);
  });

  it("--token-file reads the token from a file", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fleet-cli-"));
    try {
      writeFileSync(path.join(dir, "token"), `${running().tokens.viewer}\n`);
      const res = await fleet(["queues", "list", "--token-file", "token"], null, { cwd: dir, env: { INIT_CWD: dir } });
      expect(res.code, res.stderr).toBe(EXIT.OK);
      const missing = await fleet(["queues", "list", "--token-file", "no-such-file"], null, { cwd: dir, env: { INIT_CWD: dir } });
      expect(missing.code).toBe(EXIT.USAGE);
      expect(missing.stderr).toMatch(/cannot read --token-file no-such-file: ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("workers", () => {
  it("list: a table of the type's workers, and the same as --json", async () => {
    const res = await fleet(["workers", "list", "--type", TYPE], "viewer");
    expect(res.code, res.stderr).toBe(EXIT.OK);
    const lines = res.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^TYPE\s+ID\s+STATUS\s+LAST SEEN\s+HOST\s+GEN\s+LAST ERROR$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(1, 3))).toEqual([
      ["w-1", "running"],
      ["w-2", "error"],
      ["w-3", "offline"],
    ]);
    expect(lines[2]).toContain("Timeout after 30 s");
    expect(res.stderr).toMatch(/workers 1-3 of 3 · running 1, idle 0, error 1, offline 1/);

    const list = WorkerListSchema.parse(jsonOf(await fleet(["workers", "list", "--type", TYPE, "--json"], "viewer")));
    expect(list.total).toBe(3);
    expect(list.workers.map((w) => w.worker_id)).toEqual(["w-1", "w-2", "w-3"]);

    const offline = WorkerListSchema.parse(jsonOf(await fleet(["workers", "list", "--type", TYPE, "--status", "offline", "--json"], "viewer")));
    expect(offline.workers.map((w) => w.worker_id)).toEqual(["w-3"]);
    const paged = WorkerListSchema.parse(jsonOf(await fleet(["workers", "list", "--type", TYPE, "--limit", "1", "--all", "--json"], "viewer")));
    expect(paged.workers.map((w) => w.worker_id)).toEqual(["w-1", "w-2", "w-3"]);
  });

  it("show: the worker's fields; --json is the API's answer; a missing worker exits 3", async () => {
    const res = await fleet(["workers", "show", TYPE, "w-2"], "viewer");
    expect(res.code, res.stderr).toBe(EXIT.OK);
    expect(res.stdout).toMatch(new RegExp(`^worker\\s+${TYPE}/w-2$`, "m"));
    expect(res.stdout).toMatch(/^status\s+error \(state ERROR\)$/m);
    expect(res.stdout).toMatch(/^host\s+w-2\.cli\.test$/m);
    const detail = WorkerDetailSchema.parse(jsonOf(await fleet(["workers", "show", TYPE, "w-2", "--json"], "viewer")));
    expect(detail).toMatchObject({ worker_id: "w-2", status: "error", config: { slots: 2 } });
    const missing = await fleet(["workers", "show", TYPE, "nobody"], "viewer");
    expect(missing.code).toBe(EXIT.NOT_FOUND);
    expect(missing.stderr).toMatch(/404 not_found: There is no worker 'nobody'/);
  });

  it("remove: needs --yes, then removes the worker (admin); again: 3", async () => {
    await backend.workerRegister(TYPE, "w-gone", { hostname: "gone" });
    const refused = await fleet(["workers", "remove", TYPE, "w-gone"]);
    expect(refused.code).toBe(EXIT.USAGE);
    expect(refused.stderr).toMatch(/add --yes/);
    expect(await backend.workerGet(TYPE, "w-gone")).not.toBeNull();
    const res = await fleet(["workers", "remove", TYPE, "w-gone", "--yes"]);
    expect(res.code, res.stderr).toBe(EXIT.OK);
    expect(res.stdout.trim()).toBe(`removed worker ${TYPE}/w-gone`);
    expect(await backend.workerGet(TYPE, "w-gone")).toBeNull();
    expect((await fleet(["workers", "remove", TYPE, "w-gone", "--yes"])).code).toBe(EXIT.NOT_FOUND);
  });
});

describe("queues", () => {
  it("list: the queue with its depths; --json parses as QueueList", async () => {
    const res = await fleet(["queues", "list", "--all"], "viewer");
    expect(res.code, res.stderr).toBe(EXIT.OK);
    expect(res.stdout.split("\n")[0]).toMatch(/^NAME\s+PENDING\s+HIGH\s+NORMAL\s+LOW\s+PROCESSING\s+OVERDUE\s+SCHEDULED\s+DUE\s+DEAD$/);
    const row = res.stdout.split("\n").find((l) => l.startsWith(`${TYPE} `));
    expect(row?.split(/\s+/)).toEqual([TYPE, "2", "1", "1", "0", "0", "0", "0", "0", "3"]);
    const list = QueueListSchema.parse(jsonOf(await fleet(["queues", "list", "--all", "--json"], "viewer")));
    expect(list.queues.find((q) => q.name === TYPE)).toMatchObject({ pending: { total: 2, high: 1 }, dead: 3 });
  });

  it("show: depths and items; --json parses as QueueDetail; an unknown queue exits 3", async () => {
    const res = await fleet(["queues", "show", TYPE], "viewer");
    expect(res.code, res.stderr).toBe(EXIT.OK);
    expect(res.stdout).toMatch(/^pending\s+2 \(high 1, normal 1, low 0\)$/m);
    expect(res.stdout).toContain("https://a.example/1");
    const detail = QueueDetailSchema.parse(jsonOf(await fleet(["queues", "show", TYPE, "--json"], "viewer")));
    expect(detail.pending_items.map((i) => i.priority)).toEqual(["high", "normal"]);
    const missing = await fleet(["queues", "show", `${prefix}nothing`], "viewer");
    expect(missing.code).toBe(EXIT.NOT_FOUND);
  });
});

describe("dead letters", () => {
  it("search reads the console's search route: text, --where, task id; everything without a filter; --json carries the refs", async () => {
    const all = await fleet(["dead", "search", TYPE], "viewer");
    expect(all.code, all.stderr).toBe(EXIT.OK);
    expect(all.stdout.trimEnd().split("\n")).toHaveLength(4);
    expect(all.stdout.split("\n")[0]).toMatch(/^REF\s+INDEX\s+TASK ID\s+ATTEMPTS\s+LAST ERROR\s+BODY$/);
    expect(all.stderr).toMatch(/^3 matches in 3 tasks read \(dead\), \d+ ms$/m);
    const text = await fleet(["dead", "search", TYPE, "--text", "PARSE ERROR"], "viewer");
    // the task ids of the two "parse error" letters, not the "HTTP 503" one
    expect(text.stdout).toContain("8".padStart(32, "0"));
    expect(text.stdout).toContain("9".padStart(32, "0"));
    expect(text.stdout).not.toContain("7".padStart(32, "0"));
    expect(text.stderr).toMatch(/2 matches in 3 tasks read/);
    // a filter on the body's fields, with the text; and --limit counts past what it shows
    const where = await fleet(["dead", "search", TYPE, "--where", 'payload.note ~ "parse"', "--text", "again", "--json"], "viewer");
    expect(jsonOf(where)).toMatchObject({ matched: 1, scanned: 3, returned: 1 });
    const counted = jsonOf(await fleet(["dead", "search", TYPE, "--limit", "1", "--json"], "viewer")) as { matched: number; matches: unknown[] };
    expect([counted.matched, counted.matches.length]).toEqual([3, 1]);
    const byId = jsonOf(await fleet(["dead", "search", TYPE, "--task-id", "7".padStart(32, "0"), "--json"], "viewer")) as { matches: unknown[]; matched: number };
    const matches = byId.matches.map((m) => SearchMatchLineSchema.parse(m));
    expect(matches).toHaveLength(1);
    expect(matches[0]).toMatchObject({ list: "dead", index: 0, task_id: "7".padStart(32, "0") });
    expect(matches[0]!.body.text).toContain("HTTP 503");
    expect(matches[0]!.ref).toBe(
      createHash("sha1")
        .update(task(7, { url: "https://a.example/7", note: "HTTP 503 from upstream" }))
        .digest("hex"),
    );
    // a filter that does not parse: the console's 422, naming the position (1); an unknown queue: 3
    const bad = await fleet(["dead", "search", TYPE, "--where", "attempts >="], "viewer");
    expect(bad.code).toBe(EXIT.ERROR);
    expect(bad.stderr).toMatch(/422 validation_failed: The filter does not parse at position 12: expected a value after >=/);
    expect(bad.stdout).toBe("");
    const none = await fleet(["dead", "search", `${prefix}no-queue`], "viewer");
    expect(none.code).toBe(EXIT.NOT_FOUND);
  });

  it("fleet search looks in every list, or those --in names", async () => {
    const all = jsonOf(await fleet(["search", TYPE, "--text", "a.example", "--json"], "viewer")) as { matched: number; matches: Array<{ list: string; priority: string | null }> };
    expect(all.matched).toBe(5);
    expect(all.matches.map((m) => [m.list, m.priority])).toEqual([
      ["pending", "high"],
      ["pending", "normal"],
      ["dead", null],
      ["dead", null],
      ["dead", null],
    ]);
    const pending = await fleet(["search", TYPE, "--where", 'payload.url ~ "/2"', "--in", "pending,processing"], "viewer");
    expect(pending.code, pending.stderr).toBe(EXIT.OK);
    expect(pending.stdout.split("\n")[0]).toMatch(/^REF\s+LIST\s+INDEX/);
    expect(pending.stdout).toContain("2".padStart(32, "0"));
    expect(pending.stderr).toMatch(/1 match in 2 tasks read \(pending, processing\)/);
  });

  it("requeue takes refs from stdin; a ref no longer there exits 3; an operator may, a viewer may not", async () => {
    const found = jsonOf(await fleet(["dead", "search", TYPE, "--text", "HTTP 503", "--json"], "viewer")) as { matches: Array<{ ref: string }> };
    const ref = found.matches[0]!.ref;
    expect((await fleet(["dead", "requeue", TYPE, ref], "viewer")).code).toBe(EXIT.UNAUTHORIZED);
    const res = await fleet(["dead", "requeue", TYPE, "-"], "operator", { input: `${ref}\n` });
    expect(res.code, res.stderr).toBe(EXIT.OK);
    expect(res.stdout.trim()).toBe(`requeued 1 dead letter of queue ${TYPE}`);
    const depths = QueueDetailSchema.parse(jsonOf(await fleet(["queues", "show", TYPE, "--json"], "viewer")));
    expect(depths).toMatchObject({ dead: 2, pending: { normal: 2 } });
    const again = await fleet(["dead", "requeue", TYPE, ref, "--json"], "operator");
    expect(again.code).toBe(EXIT.NOT_FOUND);
    expect(JSON.parse(again.stdout)).toEqual({ requeued: 0, missing: [ref] });
    expect(again.stderr).toContain(ref);
  });

  it("delete needs --yes; --all --yes deletes every one", async () => {
    const refused = await fleet(["dead", "delete", TYPE, "--all"], "operator");
    expect(refused.code).toBe(EXIT.USAGE);
    expect(refused.stderr).toMatch(/add --yes/);
    const res = await fleet(["dead", "delete", TYPE, "--all", "--yes"], "operator");
    expect(res.code, res.stderr).toBe(EXIT.OK);
    expect(res.stdout.trim()).toBe(`deleted 2 dead letters of queue ${TYPE}`);
    expect((await backend.dlqRange(TYPE, 0, 10)).total).toBe(0);
  });
});

describe("bulk actions on a search's matches", () => {
  const Q = `${prefix}redrive`;
  const timeout = (i: number) => task(1000 + i, { n: i, note: i % 3 === 0 ? "HTTP 503" : `Timeout after ${i}s` });
  const audit = async () =>
    (await backend.auditRange(0, 500)).items
      .map((x) => JSON.parse(x.toString("utf8")) as { action: string; target: string; outcome: string; details?: Record<string, unknown> })
      .filter((e) => e.target === `queue:${Q}` && e.action.startsWith("queue.bulk"));

  beforeAll(async () => {
    if (startError) return;
    // 30 dead letters: 20 time out, 10 are an HTTP 503
    for (let i = 0; i < 30; i++) await backend.queueDead(Q, timeout(i));
  });

  it("preview counts without changing anything; a viewer may preview, not start (5)", async () => {
    const res = await fleet(["bulk", "preview", Q, "--action", "requeue-dead", "--text", "timeout"], "viewer");
    expect(res.code, res.stderr).toBe(EXIT.OK);
    expect(res.stdout.split("\n")[0]).toBe(`20 dead letters of queue ${Q} match (30 read); \`fleet bulk start\` would requeue them`);
    expect(res.stdout.trimEnd().split("\n")).toHaveLength(2 + 5);
    const viaJson = jsonOf(await fleet(["bulk", "preview", Q, "--action", "delete-dead", "--where", 'payload.note = "HTTP 503"', "--json"], "viewer"));
    expect(viaJson).toMatchObject({ queue: Q, action: "delete-dead", matched: 10, scanned: 30 });
    const refused = await fleet(["bulk", "start", Q, "--action", "requeue-dead", "--text", "timeout", "--yes"], "viewer");
    expect(refused.code).toBe(EXIT.UNAUTHORIZED);
    expect(refused.stderr).toMatch(/403 forbidden: This needs the operator role/);
    expect(await backend.dlqLength(Q)).toBe(30);
    expect(await audit()).toEqual([]);
  });

  it("--expect that no longer holds starts nothing (4); a filter that does not parse starts nothing (1)", async () => {
    const res = await fleet(["bulk", "start", Q, "--action", "requeue-dead", "--text", "timeout", "--expect", "19", "--yes"], "operator");
    expect(res.code).toBe(EXIT.CONFLICT);
    expect(res.stderr).toMatch(/the search now matches 20 dead letters, not 19: nothing started/);
    const bad = await fleet(["bulk", "start", Q, "--action", "requeue-dead", "--where", "payload.n >", "--yes"], "operator");
    expect(bad.code).toBe(EXIT.ERROR);
    expect(bad.stderr).toMatch(/422 validation_failed: The filter does not parse/);
    const none = await fleet(["bulk", "start", Q, "--action", "requeue-dead", "--text", "no such text", "--yes"], "operator");
    expect(none.code, none.stderr).toBe(EXIT.OK);
    expect(none.stderr).toMatch(/no dead letter of queue .* matches \(30 read\): nothing started/);
    expect(await backend.dlqLength(Q)).toBe(30);
    expect(await audit()).toEqual([]);
  });

  it("start --yes requeues every match once, follows the job live to its end (exit 0), audited as one entry", async () => {
    // 5 a second: about four seconds, so the progress shows on the way (frames of the event stream, not a 5 s poll)
    const res = await fleet(["bulk", "start", Q, "--action", "requeue-dead", "--text", "timeout", "--expect", "20", "--rate", "5", "--yes"], "operator");
    expect(res.code, res.stderr).toBe(EXIT.OK);
    expect(res.stdout.trim()).toBe(`requeued 20 dead letters of queue ${Q} (20 at the preview), 30 read: done`);
    expect(res.stderr).toMatch(/^# job [0-9a-f]{16} started: requeue 20 dead letters of queue .*, at most 5 a second$/m);
    const running = res.stderr.split("\n").filter((l) => /^# running: requeued \d+ of 20 previewed/.test(l));
    expect(running.length, res.stderr).toBeGreaterThanOrEqual(3);
    expect(res.stderr).toMatch(/^# done: requeued 20 of 20 previewed, 30 read$/m);
    expect(await backend.dlqLength(Q)).toBe(10);
    const pending = (await backend.queuePeek(Q, 100)).map((b) => JSON.parse(b.toString("utf8")) as { payload: { note: string }; attempts?: number });
    expect(pending).toHaveLength(20);
    expect(pending.every((t) => t.payload.note.startsWith("Timeout"))).toBe(true);
    await expect.poll(async () => (await audit()).map((e) => [e.action, e.outcome, e.details?.state])).toEqual([["queue.bulk", "done", "done"]]);
    expect((await audit())[0]!.details).toMatchObject({ q: "timeout", rate: 5, expected: 20, done: 20, missing: 0 });
    const list = await fleet(["bulk", "list", Q], "viewer");
    expect(list.code).toBe(EXIT.OK);
    expect(list.stdout.split("\n")[1]).toMatch(/^[0-9a-f]{16}\s+requeue-dead\s+done\s+20\s+20\s+0\s+cli-operator/);
    BulkJobsSchema.parse(jsonOf(await fleet(["bulk", "list", Q, "--json"], "viewer")));
  });

  it("--detach, status, cancel: a cancelled job exits 4 when followed; a job that ended cannot be cancelled (4)", async () => {
    // a queue of its own: 60 dead letters at 1 a second, a minute of work, cancelled long before
    const Q2 = `${prefix}slow`;
    for (let i = 0; i < 60; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => backend.queueDead(Q2, timeout(i + j + 1))));
    const started = await fleet(["bulk", "start", Q2, "--action", "delete-dead", "--where", "payload.n >= 0", "--rate", "1", "--yes", "--detach", "--json"], "operator");
    const job = BulkJobSchema.parse(jsonOf(started));
    expect(job).toMatchObject({ queue: Q2, action: "delete-dead", state: "running", expected: 60, rate: 1 });
    const cancelled = await fleet(["bulk", "cancel", Q2, job.id], "operator");
    expect(cancelled.code, cancelled.stderr).toBe(EXIT.OK);
    expect(cancelled.stdout.trim()).toMatch(new RegExp(`^cancelled job ${job.id}: deleted \\d+ dead letters? so far$`));
    // a viewer may look, not cancel (the role is checked before anything else)
    expect((await fleet(["bulk", "cancel", Q2, job.id], "viewer")).code).toBe(EXIT.UNAUTHORIZED);
    const followed = await fleet(["bulk", "status", Q2, job.id, "--follow"], "viewer");
    expect(followed.code).toBe(EXIT.CONFLICT);
    expect(followed.stdout).toMatch(/deleted \d+ dead letters? of queue .* \(60 at the preview\), \d+ read: cancelled \(cancelled by cli-operator\)/);
    const again = await fleet(["bulk", "cancel", Q2, job.id], "operator");
    expect(again.code).toBe(EXIT.CONFLICT);
    expect(again.stderr).toMatch(/409 conflict: The job is already cancelled/);
    expect((await fleet(["bulk", "status", Q2, "0000000000000000"], "viewer")).code).toBe(EXIT.NOT_FOUND);
    // status of a job that ended: its end's exit code (4: cancelled)
    const final = await fleet(["bulk", "status", Q2, job.id, "--json"], "viewer");
    expect(final.code).toBe(EXIT.CONFLICT);
    const done = BulkJobSchema.parse(JSON.parse(final.stdout));
    expect(done.done).toBeLessThan(60);
    expect(await backend.dlqLength(Q2)).toBe(60 - done.done);
  });
});

describe("config", () => {
  it("get prints the config and its generation; patch writes a new generation; a stale --if-match exits 4 and changes nothing", async () => {
    const got = jsonOf(await fleet(["config", "get", TYPE, "w-1", "--json"], "viewer")) as { config: unknown; config_gen: number };
    expect(got.config).toEqual({ slots: 2 });
    const human = await fleet(["config", "get", TYPE, "w-1"], "viewer");
    expect(human.stderr).toContain(`config of ${TYPE}/w-1, generation ${got.config_gen}:`);
    expect(JSON.parse(human.stdout)).toEqual({ slots: 2 });

    const patched = await fleet(["config", "patch", TYPE, "w-1", "--set", "slots=4", "--set", "mode=fast", "--if-match", String(got.config_gen), "--json"]);
    const result = ConfigResultSchema.parse(jsonOf(patched));
    expect(result).toEqual({ config: { slots: 4, mode: "fast" }, config_gen: got.config_gen + 1 });

    const stale = await fleet(["config", "patch", TYPE, "w-1", "--set", "slots=5", "--if-match", String(got.config_gen)]);
    expect(stale.code).toBe(EXIT.CONFLICT);
    expect(stale.stderr).toMatch(/412 precondition_failed/);
    expect((await backend.workerGet(TYPE, "w-1"))?.config).toEqual({ slots: 4, mode: "fast" });

    const unset = await fleet(["config", "patch", TYPE, "w-1", "--unset", "mode"]);
    expect(unset.code, unset.stderr).toBe(EXIT.OK);
    expect(JSON.parse(unset.stdout)).toEqual({ slots: 4 });
    expect(unset.stderr).toContain(`is now at generation ${got.config_gen + 2}`);
  });

  it("a config the catalog's schema refuses exits 1 with the console's details; an operator is refused (5)", async () => {
    const bad = await fleet(["config", "patch", TYPE, "w-2", "--set", "slots=100"]);
    expect(bad.code).toBe(EXIT.ERROR);
    expect(bad.stderr).toMatch(/422 validation_failed/);
    expect(bad.stderr).toMatch(/\/slots: must be <= 8/);
    const operator = await fleet(["config", "patch", TYPE, "w-2", "--set", "slots=3"], "operator");
    expect(operator.code).toBe(EXIT.UNAUTHORIZED);
  });

  it("--file (relative to where fleet was started) and --replace write the whole config", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fleet-cli-"));
    try {
      writeFileSync(path.join(dir, "config.json"), JSON.stringify({ slots: 6 }));
      const res = await fleet(["config", "patch", TYPE, "w-3", "--replace", "--file", "config.json", "--json"], "admin", { env: { INIT_CWD: dir } });
      expect(ConfigResultSchema.parse(jsonOf(res)).config).toEqual({ slots: 6 });
      const stdin = await fleet(["config", "patch", TYPE, "w-3", "--file", "-", "--json"], "admin", { input: '{"mode": "slow"}' });
      expect(ConfigResultSchema.parse(jsonOf(stdin)).config).toEqual({ slots: 6, mode: "slow" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("tail", () => {
  /** Starts `fleet tail`, waits until it says it is connected, and collects what it prints. */
  async function startTail(args: string[]) {
    const c = running();
    const child = spawnCli(["tail", ...args], { FLEET_URL: c.url, FLEET_TOKEN: c.tokens.viewer });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    const connected = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fleet tail did not connect: ${stderr}`)), 30_000);
      child.stderr!.on("data", (c: Buffer) => {
        stderr += c.toString("utf8");
        if (stderr.includes("# connected")) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on("exit", () => reject(new Error(`fleet tail exited before it connected: ${stderr}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await connected;
    return { child, exited, out: () => stdout, err: () => stderr };
  }

  it("--json --count 2 prints the next two bus messages of the topics asked for, one JSON line each, and exits 0", async () => {
    const t = await startTail(["--topics", `${prefix}*`, "--events", "bus", "--count", "2", "--json"]);
    await backend.eventPublish("some.other.topic", JSON.stringify({ skip: true }));
    await backend.eventPublish(`${prefix}a`, JSON.stringify({ n: 1 }));
    await backend.eventPublish(`${prefix}b`, "plain text");
    expect(await t.exited).toBe(EXIT.OK);
    const frames = t
      .out()
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { event: string; data: { topic: string; payload: unknown } });
    expect(frames.map((f) => [f.event, f.data.topic, f.data.payload])).toEqual([
      ["bus", `${prefix}a`, { n: 1 }],
      ["bus", `${prefix}b`, "plain text"],
    ]);
    for (const s of secrets) expect(t.out() + t.err()).not.toContain(s);
  });

  it("shows a worker's change as a line for people", async () => {
    const t = await startTail(["--events", "workers", "--count", "1"]);
    await backend.workerSetState(TYPE, "w-1", "IDLE", null, Date.now() / 1000);
    expect(await t.exited).toBe(EXIT.OK);
    expect(t.out()).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}worker {2}${TYPE}/w-1 {2}idle {2}gen \\d+$`, "m"));
  });

  it("--for ends a quiet stream with 0", async () => {
    // --for counts from the start, connecting included (README): 15 s, so that it is connected
    // first on a loaded machine (1 s ran out before it connected there) and ends a quiet stream
    const t = await startTail(["--topics", `${prefix}never`, "--events", "bus", "--for", "15"]);
    expect(await t.exited).toBe(EXIT.OK);
    expect(t.out()).toBe("");
  });
});

describe("failures a script can tell apart", () => {
  it("no console at FLEET_URL: 6", async () => {
    const port = await freePort();
    const res = await fleet(["workers", "list"], "viewer", { env: { FLEET_URL: `http://127.0.0.1:${port}` } });
    expect(res.code).toBe(EXIT.UNAVAILABLE);
    expect(res.stderr).toMatch(new RegExp(`cannot reach the console at http://127.0.0.1:${port} \\(ECONNREFUSED\\)`));
  });

  it("an answer that is not what the API promises: 1, saying so; a proxy's 502 page: 6", async () => {
    const server: Server = createServer((req, res) => {
      if (req.url?.startsWith("/api/v1/workers")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ total: "many", workers: [] }));
      } else {
        res.writeHead(502, { "Content-Type": "text/html" });
        res.end("<html><body>Bad gateway</body></html>");
      }
    });
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    try {
      const env = { FLEET_URL: `http://127.0.0.1:${port}` };
      const odd = await fleet(["workers", "list"], "viewer", { env });
      expect(odd.code).toBe(EXIT.ERROR);
      expect(odd.stderr).toMatch(/unexpected answer from GET \/api\/v1\/workers \(200\): total: /);
      const gateway = await fleet(["queues", "list"], "viewer", { env });
      expect(gateway.code).toBe(EXIT.UNAVAILABLE);
      expect(gateway.stderr).toMatch(/unexpected answer 502 .*Bad gateway/);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe("a console whose Redis is down", () => {
  let down: RunningConsole | undefined;
  let downError: unknown = null;
  beforeAll(async () => {
    try {
      // nothing listens on port 1: every request that needs Redis answers 503
      down = await startConsole({ backendUrl: "redis://127.0.0.1:1/0", healthy: false });
      secrets.push(...Object.values(down.tokens));
    } catch (err) {
      downError = err;
    }
  }, 120_000);
  afterAll(async () => {
    await down?.stop();
  });

  it("answers 503 backend_unavailable, which exits 6", async () => {
    if (downError || !down) throw downError ?? new Error("the console did not start");
    const res = await runCli(["workers", "list"], { FLEET_URL: down.url, FLEET_TOKEN: down.tokens.viewer });
    expect(res.code, res.stderr).toBe(EXIT.UNAVAILABLE);
    expect(res.stderr).toMatch(/503 backend_unavailable/);
    const search = await runCli(["search", "q", "--text", "x"], { FLEET_URL: down.url, FLEET_TOKEN: down.tokens.viewer });
    expect(search.code, search.stderr).toBe(EXIT.UNAVAILABLE);
    const bulk = await runCli(["bulk", "start", "q", "--action", "requeue-dead", "--text", "x", "--yes"], { FLEET_URL: down.url, FLEET_TOKEN: down.tokens.operator });
    expect(bulk.code, bulk.stderr).toBe(EXIT.UNAVAILABLE);
    for (const s of secrets) expect(res.stdout + res.stderr + search.stdout + search.stderr + bulk.stdout + bulk.stderr).not.toContain(s);
  });
});
