// Where the tests find Fleet's upstream Python reference (backend.py), never copied into this
// repository: $FLEET_PY_BACKEND (the file, a directory holding it, or a fleet-framework
// checkout with fleet/core/backend.py), else ../shared/spec beside the repository root.
// The one lookup for every test that runs it (packages/backend cross-lang, packages/worker
// interop): a clone on its own has no ../shared, and its tests must pass there, with these
// reported as skipped under a title that says why. CI sets FLEET_REQUIRE_PY_REFERENCE=1,
// which turns the absence into a failure. scripts/sum-test-reports.mjs allows exactly this
// skip (it looks for PY_REFERENCE_SKIP in the title), and only without that variable.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** In the title of every test skipped for want of the reference; the summer matches it. */
export const PY_REFERENCE_SKIP = "needs the upstream Python reference backend.py";
const HOW = "set FLEET_PY_BACKEND or put ../shared/spec beside the repo";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export type PyReferenceLookup =
  | { found: true; file: string }
  /** `misconfigured`: FLEET_PY_BACKEND is set but holds no backend.py, which never skips. */
  | { found: false; looked: string[]; misconfigured: boolean };

function candidates(where: string): string[] {
  return [where, path.join(where, "backend.py"), path.join(where, "fleet", "core", "backend.py")];
}

const isFile = (p: string) => existsSync(p) && statSync(p).isFile();

export function findPyReference(env: NodeJS.ProcessEnv = process.env, repoRoot = REPO_ROOT): PyReferenceLookup {
  const given = env.FLEET_PY_BACKEND;
  const where = path.resolve(repoRoot, given || path.join("..", "shared", "spec"));
  const looked = candidates(where);
  const file = looked.find(isFile);
  if (file) return { found: true, file };
  return { found: false, looked: looked.slice(1), misconfigured: Boolean(given) };
}

export interface PyReferenceSuite {
  /** True when the reference is absent and may be: describe.skipIf(suite.skip). */
  skip: boolean;
  /** backend.py, or null when skipped. */
  file: string | null;
  /** The suite's title; when skipped, with the reason the summer allows. */
  title(name: string): string;
}

/**
 * For a test file that runs the reference, at module level:
 *
 *     const py = pyReferenceSuite();
 *     describe.skipIf(py.skip)(py.title("..."), () => { ... });
 *
 * Found: sets FLEET_PY_BACKEND to the file, so the Python helpers the tests spawn (which
 * inherit the environment) import exactly it. Absent: skip, unless FLEET_REQUIRE_PY_REFERENCE=1
 * or FLEET_PY_BACKEND names something else; then it throws, failing the test file by name.
 */
export function pyReferenceSuite(env: NodeJS.ProcessEnv = process.env, repoRoot = REPO_ROOT): PyReferenceSuite {
  const ref = findPyReference(env, repoRoot);
  if (ref.found) {
    env.FLEET_PY_BACKEND = ref.file;
    return { skip: false, file: ref.file, title: (name) => name };
  }
  if (ref.misconfigured) {
    throw new Error(`FLEET_PY_BACKEND=${env.FLEET_PY_BACKEND} holds no backend.py (looked at ${ref.looked.join(", ")})`);
  }
  if (env.FLEET_REQUIRE_PY_REFERENCE === "1") {
    throw new Error(`FLEET_REQUIRE_PY_REFERENCE=1 but the upstream Python reference is absent (looked at ${ref.looked.join(", ")}); ${HOW}`);
  }
  return { skip: true, file: null, title: (name) => `${name} [skipped: ${PY_REFERENCE_SKIP} (${HOW})]` };
}
