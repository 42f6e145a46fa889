// The container image, without a container engine: this reads the Dockerfile's console stage,
// copies exactly what its COPY lines copy (from the standalone build that `pnpm --filter
// @fleet/web build:image` made, as the build stage does) into a folder, and starts its CMD
// there with its ENV, so the image cannot drift from what is tested. Then: its HEALTHCHECK
// passes, pages render with their static assets, and SIGTERM is graceful (event streams get a
// retry hint and end, the process exits within 10 s), also when the server's event loop is stuck.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { expect, test } from "../fixtures";
import { freePort, killGroup, spawnServer, type ServerProcess } from "./support/console";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const redisUrl = process.env.E2E_REDIS_URL!;

interface Stage {
  name: string;
  workdir: string;
  env: Record<string, string>;
  copies: Array<{ from: string; to: string }>;
  runs: string[];
  cmd: string[];
  healthcheck: string[];
  user: string | null;
}

/** The console stage of the Dockerfile, in the forms its header promises. */
function consoleStage(): { stage: Stage; buildWorkdir: string; buildCopiesRepo: boolean } {
  const lines = readFileSync(join(ROOT, "Dockerfile"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const stages: Stage[] = [];
  let cur: Stage | null = null;
  for (const line of lines) {
    const [op, ...rest] = line.split(/\s+/);
    const arg = line.slice(op!.length).trim();
    if (op === "FROM") {
      cur = { name: /\bAS\s+(\S+)/i.exec(arg)?.[1] ?? "", workdir: "/", env: {}, copies: [], runs: [], cmd: [], healthcheck: [], user: null };
      stages.push(cur);
      continue;
    }
    if (!cur) throw new Error(`Dockerfile: ${op} before FROM`);
    if (op === "WORKDIR") cur.workdir = arg;
    else if (op === "ENV") {
      for (const pair of arg.split(/\s+/)) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/.exec(pair);
        if (!m) throw new Error(`Dockerfile: ENV must be KEY=VALUE pairs without quotes: ${line}`);
        cur.env[m[1]!] = m[2]!;
      }
    } else if (op === "COPY") {
      const parts = rest.filter((p) => !p.startsWith("--chown"));
      if (parts[0]?.startsWith("--from=")) cur.copies.push({ from: parts[1]!, to: parts[2]! });
      else cur.copies.push({ from: `context:${parts[0]}`, to: parts[1]! });
    } else if (op === "RUN") cur.runs.push(arg);
    else if (op === "CMD") cur.cmd = JSON.parse(arg) as string[];
    else if (op === "HEALTHCHECK") cur.healthcheck = JSON.parse(arg.slice(arg.indexOf("CMD") + 3).trim()) as string[];
    else if (op === "USER") cur.user = arg;
  }
  const last = stages.at(-1)!;
  const build = stages.find((s) => s.name === "build");
  if (!build) throw new Error("Dockerfile: no build stage");
  return { stage: last, buildWorkdir: build.workdir, buildCopiesRepo: build.copies.some((c) => c.from === "context:." && c.to === ".") };
}

function assemble(stage: Stage, buildWorkdir: string): string {
  const dir = mkdtempSync(join(tmpdir(), "fleet-image-"));
  for (const { from, to } of stage.copies) {
    expect(from.startsWith(`${buildWorkdir}/`), `COPY ${from}: from the build stage's ${buildWorkdir}`).toBe(true);
    const src = join(ROOT, relative(buildWorkdir, from));
    expect(existsSync(src), `${src} exists (run pnpm --filter @fleet/web build:image first)`).toBe(true);
    const dst = resolve(dir, relative(stage.workdir, to.startsWith("/") ? to : join(stage.workdir, to)));
    if (statSync(src).isDirectory()) cpSync(src, dst, { recursive: true, verbatimSymlinks: true });
    else {
      cpSync(src, to.endsWith("/") ? join(dst, src.split("/").pop()!) : dst);
    }
  }
  return dir;
}

/** The stage's CMD in the assembled dir, with the image's environment only (the shared launcher, ./support/console). */
function launch(dir: string, stage: Stage, port: number): ServerProcess {
  const [cmd, ...args] = stage.cmd;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    ...stage.env,
    PORT: String(port),
    // the image listens on every interface; a test keeps it to loopback, like the compose file's port mapping
    HOSTNAME: "127.0.0.1",
    FLEET_BACKEND_URL: redisUrl,
    FLEET_INSECURE_NO_AUTH: "1",
  };
  return spawnServer({ command: cmd!, args, cwd: dir, env, inheritEnv: false });
}

async function until<T>(what: string, ms: number, fn: () => T | null | false | Promise<T | null | false>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await Promise.resolve(fn()).catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens GET /api/v1/events and collects what arrives until the stream ends. */
function openStream(port: number): { text: () => string; ended: Promise<void>; opened: Promise<number> } {
  let body = "";
  let resolveOpened!: (status: number) => void;
  const opened = new Promise<number>((r) => (resolveOpened = r));
  const ended = new Promise<void>((resolveEnded) => {
    const req = httpRequest({ host: "127.0.0.1", port, path: "/api/v1/events", headers: { Accept: "text/event-stream" } }, (res) => {
      resolveOpened(res.statusCode ?? 0);
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolveEnded());
      res.on("error", () => resolveEnded());
      res.on("close", () => resolveEnded());
    });
    req.on("error", () => resolveEnded());
    req.end();
  });
  return { text: () => body, ended, opened };
}

test.describe.configure({ mode: "serial", timeout: 540_000 });

test("the image's console stage holds no build tools and runs as a non-root user", () => {
  const { stage, buildWorkdir, buildCopiesRepo } = consoleStage();
  expect(stage.name).toBe("console");
  expect(buildWorkdir).toBe("/app");
  expect(buildCopiesRepo).toBe(true);
  expect(stage.user).toBe("fleet");
  expect(stage.runs.join("\n")).not.toMatch(/\b(pnpm|npm|yarn|apt-get|gcc|make|git)\b/);
  expect(stage.copies.map((c) => c.from)).toEqual(expect.arrayContaining(["/app/apps/web/.next-standalone/standalone"]));
  expect(stage.cmd.slice(0, 2)).toEqual(["node", "supervise.mjs"]);
  expect(stage.healthcheck.join(" ")).toContain("/api/v1/health");
});

test("assembled as the image copies it, the console starts from its CMD, passes its HEALTHCHECK and serves pages", async ({ page }) => {
  const { stage, buildWorkdir } = consoleStage();
  const dir = assemble(stage, buildWorkdir);
  const port = await freePort();
  const run = launch(dir, stage, port);
  try {
    // the HEALTHCHECK command, as Docker runs it inside the container
    const [hc, ...hcArgs] = stage.healthcheck;
    await until(
      "the HEALTHCHECK to pass",
      60_000,
      () => spawnSync(hc === "node" ? process.execPath : hc!, hcArgs, { env: { PATH: process.env.PATH, PORT: String(port) }, timeout: 10_000 }).status === 0,
    );
    expect(run.output()).not.toContain("Error");
    const assets: number[] = [];
    page.on("response", (r) => {
      if (r.url().includes("/_next/static/")) assets.push(r.status());
    });
    await page.goto(`http://127.0.0.1:${port}/queues`);
    await expect(page.getByRole("heading", { name: "Queues", level: 1 })).toBeVisible();
    expect(assets.length).toBeGreaterThan(0);
    expect(assets.every((s) => s === 200)).toBe(true);
    // the page's stylesheet applied: the body is not the browser's default serif
    expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).not.toMatch(/^"?Times/);
  } finally {
    // the supervisor and the server it started, both (killGroup waits until neither is left)
    await killGroup(run);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("SIGTERM: event streams get a retry hint and end, new connections are refused, the process exits by itself (not by the supervisor's deadline)", async () => {
  const { stage, buildWorkdir } = consoleStage();
  const dir = assemble(stage, buildWorkdir);
  const port = await freePort();
  const run = launch(dir, stage, port);
  try {
    await until("the console to answer", 60_000, async () => (await fetch(`http://127.0.0.1:${port}/api/v1/health`)).ok);
    const streams = [openStream(port), openStream(port)];
    expect(await Promise.all(streams.map((s) => s.opened))).toEqual([200, 200]);
    await until("the streams to be live", 10_000, () => streams.every((s) => s.text().includes("retry: 3000")));
    run.child.kill("SIGTERM");
    await Promise.all(streams.map((s) => s.ended));
    for (const s of streams) {
      expect(s.text()).toContain(": server shutting down");
      expect(s.text()).toContain("retry: 1000");
    }
    const code = await run.exited;
    expect(code, run.output()).toBe(0);
    // which ended it: the server itself, not the supervisor's kill at its deadline
    expect(run.output()).not.toContain("did not stop within");
    await expect(fetch(`http://127.0.0.1:${port}/api/v1/health`)).rejects.toThrow();
  } finally {
    await killGroup(run);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("SIGTERM with the server's event loop stuck: the supervisor still ends it, at its deadline", async () => {
  const { stage, buildWorkdir } = consoleStage();
  const dir = assemble(stage, buildWorkdir);
  const port = await freePort();
  const run = launch(dir, stage, port);
  try {
    await until("the console to answer", 60_000, async () => (await fetch(`http://127.0.0.1:${port}/api/v1/health`)).ok);
    // the server process is the supervisor's child; SIGSTOP freezes it as a stuck loop would (nothing of it runs)
    const serverPid = Number(
      spawnSync("pgrep", ["-P", String(run.child.pid)], { encoding: "utf8" })
        .stdout.trim()
        .split("\n")[0],
    );
    expect(serverPid).toBeGreaterThan(0);
    process.kill(serverPid, "SIGSTOP");
    const t0 = Date.now();
    run.child.kill("SIGTERM");
    await run.exited;
    // which ended it: the supervisor's deadline (9.5 s by default), not the server; generous above
    expect(run.output()).toContain("did not stop within 9500 ms");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(9000);
    expect(Date.now() - t0).toBeLessThan(60_000);
    await until("the server process to be gone", 5000, () => {
      try {
        process.kill(serverPid, 0);
        return false;
      } catch {
        return true;
      }
    });
  } finally {
    await killGroup(run);
    rmSync(dir, { recursive: true, force: true });
  }
});
