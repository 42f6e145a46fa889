// stopWhenLogPipeBreaks over real pipes: a write to a pipe whose reader has gone fails with
// EPIPE, which stops the console once and is not thrown.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";

import { stopWhenLogPipeBreaks } from "./log-pipes";

describe("stopWhenLogPipeBreaks", () => {
  it("stops once, on the first error of either stream, and swallows the later ones", () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const calls: string[] = [];
    stopWhenLogPipeBreaks((name, err) => calls.push(`${name}:${err.message}`), { stdout: stdout as never, stderr: stderr as never });
    stderr.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    stdout.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    stderr.emit("error", new Error("again"));
    expect(calls).toEqual(["stderr:write EPIPE"]);
  });

  it("in a process whose stdout reader is gone: the writes fail with EPIPE, it stops once, nothing is thrown", () => {
    // The child's stdout is a pipe into `true`, which exits without reading: once the pipe's
    // buffer is full and its reader gone, every write fails with EPIPE. The child reports on
    // fd 3 (its stderr here) how often it was asked to stop, and whether anything was thrown.
    const dir = mkdtempSync(join(tmpdir(), "log-pipes-"));
    const child = join(dir, "child.mts");
    writeFileSync(
      child,
      `
      import { writeSync } from "node:fs";
      import { stopWhenLogPipeBreaks } from ${JSON.stringify(fileURLToPath(new URL("./log-pipes.ts", import.meta.url)))};
      let stops = 0;
      stopWhenLogPipeBreaks((name, err) => { stops++; writeSync(3, name + " " + (err as NodeJS.ErrnoException).code + "\\n"); });
      process.on("uncaughtException", (e) => writeSync(3, "uncaught " + e.message + "\\n"));
      for (let i = 0; i < 500; i++) console.log("line " + i + " ".repeat(1000));
      setTimeout(() => { writeSync(3, "stops " + stops + "\\n"); process.exit(0); }, 500);
      `,
    );
    try {
      const run = spawnSync("bash", ["-c", `node --import tsx "$0" 3>&2 | true`, child], { encoding: "utf8", timeout: 120_000 });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toContain("stdout EPIPE");
      expect(run.stderr).toContain("stops 1");
      expect(run.stderr).not.toContain("uncaught");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
