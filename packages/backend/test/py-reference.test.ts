// The one lookup of the upstream Python reference (./py-reference.ts), on fixture trees.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PY_REFERENCE_SKIP, findPyReference, pyReferenceSuite } from "./py-reference";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A directory holding `repo/` and whatever else the test puts beside it. */
function tree(files: string[] = []): { base: string; repo: string } {
  const base = mkdtempSync(path.join(tmpdir(), "py-ref-"));
  dirs.push(base);
  mkdirSync(path.join(base, "repo"));
  for (const f of files) {
    mkdirSync(path.dirname(path.join(base, f)), { recursive: true });
    writeFileSync(path.join(base, f), "# backend.py\n");
  }
  return { base, repo: path.join(base, "repo") };
}

describe("findPyReference", () => {
  it("takes ../shared/spec/backend.py beside the repository by default", () => {
    const { base, repo } = tree(["shared/spec/backend.py"]);
    expect(findPyReference({}, repo)).toEqual({ found: true, file: path.join(base, "shared/spec/backend.py") });
  });

  it("takes FLEET_PY_BACKEND as the file, a directory holding it, or a fleet-framework checkout", () => {
    const { base, repo } = tree(["a/backend.py", "fw/fleet/core/backend.py", "shared/spec/backend.py"]);
    expect(findPyReference({ FLEET_PY_BACKEND: path.join(base, "a/backend.py") }, repo)).toEqual({ found: true, file: path.join(base, "a/backend.py") });
    expect(findPyReference({ FLEET_PY_BACKEND: path.join(base, "a") }, repo)).toEqual({ found: true, file: path.join(base, "a/backend.py") });
    expect(findPyReference({ FLEET_PY_BACKEND: path.join(base, "fw") }, repo)).toEqual({ found: true, file: path.join(base, "fw/fleet/core/backend.py") });
  });

  it("reports where it looked when the reference is absent", () => {
    const { base, repo } = tree();
    const r = findPyReference({}, repo);
    expect(r).toEqual({ found: false, misconfigured: false, looked: [path.join(base, "shared/spec/backend.py"), path.join(base, "shared/spec/fleet/core/backend.py")] });
  });
});

describe("pyReferenceSuite", () => {
  it("runs the suite when the reference is there, and points the spawned Python helpers at that file", () => {
    const { base, repo } = tree(["shared/spec/backend.py"]);
    const env: NodeJS.ProcessEnv = {};
    const s = pyReferenceSuite(env, repo);
    expect(s.skip).toBe(false);
    expect(s.title("cross-lang")).toBe("cross-lang");
    expect(env.FLEET_PY_BACKEND).toBe(path.join(base, "shared/spec/backend.py"));
  });

  it("skips in a clone on its own, with the reason in the title", () => {
    const { repo } = tree();
    const s = pyReferenceSuite({}, repo);
    expect(s.skip).toBe(true);
    expect(s.file).toBeNull();
    expect(s.title("cross-lang")).toBe(`cross-lang [skipped: ${PY_REFERENCE_SKIP} (set FLEET_PY_BACKEND or put ../shared/spec beside the repo)]`);
  });

  it("fails instead with FLEET_REQUIRE_PY_REFERENCE=1 (CI), saying where it looked", () => {
    const { base, repo } = tree();
    expect(() => pyReferenceSuite({ FLEET_REQUIRE_PY_REFERENCE: "1" }, repo)).toThrow(
      `FLEET_REQUIRE_PY_REFERENCE=1 but the upstream Python reference is absent (looked at ${path.join(base, "shared/spec/backend.py")}`,
    );
  });

  it("fails, never skips, when FLEET_PY_BACKEND names a place without backend.py", () => {
    const { base, repo } = tree(["shared/spec/backend.py"]);
    expect(() => pyReferenceSuite({ FLEET_PY_BACKEND: path.join(base, "typo") }, repo)).toThrow(/FLEET_PY_BACKEND=.*typo holds no backend\.py/);
  });
});
