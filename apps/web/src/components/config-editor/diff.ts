// Pure helpers of the config editor: what changed between two configs (for the review),
// the JSON merge patch (RFC 7386) that turns one into the other, and applying such a patch
// (to rebase "my change" onto someone else's newer version: @fleet/schema's applyMergePatch,
// the same function the server applies).

import { applyMergePatch, isJsonObject, withoutUndefined } from "@fleet/schema";

export { applyMergePatch };

export type JsonObject = Record<string, unknown>;

export type ChangeKind = "added" | "removed" | "changed";

export interface ConfigChange {
  /** Object member names from the root; arrays are compared and replaced whole. */
  path: string[];
  kind: ChangeKind;
  /** Absent (undefined) when kind is "added". */
  before?: unknown;
  /** Absent (undefined) when kind is "removed". */
  after?: unknown;
}

export const isPlainObject: (v: unknown) => v is JsonObject = isJsonObject;

/** A deep copy without undefined members (what JSON.stringify would keep). */
export const stripUndefined = withoutUndefined;
const clone = withoutUndefined;

// A plain assignment of "__proto__" (a legal JSON member name) would change the prototype.
function setOwn(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Deep equality of JSON values; object member order does not matter, undefined members count as absent. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = definedKeys(a);
    const kb = definedKeys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function definedKeys(o: JsonObject): string[] {
  return Object.keys(o).filter((k) => o[k] !== undefined);
}

function has(o: JsonObject, k: string): boolean {
  return Object.hasOwn(o, k) && o[k] !== undefined;
}

/**
 * Every leaf that differs, in a stable order (the old object's member order, then members
 * only the new one has). Nested objects are walked; anything else is compared whole.
 */
export function diffConfig(before: unknown, after: unknown, path: string[] = []): ConfigChange[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const out: ConfigChange[] = [];
    const keys = [...definedKeys(before), ...definedKeys(after).filter((k) => !has(before, k))];
    for (const k of keys) {
      const p = [...path, k];
      if (!has(after, k)) out.push({ path: p, kind: "removed", before: before[k] });
      else if (!has(before, k)) out.push({ path: p, kind: "added", after: after[k] });
      else out.push(...diffConfig(before[k], after[k], p));
    }
    return out;
  }
  if (jsonEqual(before, after)) return [];
  return [{ path, kind: "changed", before, after }];
}

/**
 * The smallest RFC 7386 merge patch that turns `before` into `after`: removed members are
 * null, nested objects are patched member by member, anything else is replaced whole.
 * `{}` when they are equal. A non-object `after` is its own patch.
 */
export function mergePatchBetween(before: unknown, after: unknown): unknown {
  if (!isPlainObject(after)) return clone(after);
  if (!isPlainObject(before)) return stripUndefined(after);
  const patch: JsonObject = {};
  for (const k of definedKeys(before)) {
    if (!has(after, k)) setOwn(patch, k, null);
  }
  for (const k of definedKeys(after)) {
    if (!has(before, k)) {
      setOwn(patch, k, stripUndefined(after[k]));
    } else if (isPlainObject(before[k]) && isPlainObject(after[k])) {
      const sub = mergePatchBetween(before[k], after[k]);
      if (isPlainObject(sub) && Object.keys(sub).length > 0) setOwn(patch, k, sub);
    } else if (!jsonEqual(before[k], after[k])) {
      setOwn(patch, k, stripUndefined(after[k]));
    }
  }
  return patch;
}

/**
 * Whether a merge patch can say it: a patch cannot set a member to null (null means
 * "remove"), so such an edit has to be sent as the whole config instead.
 */
export function mergePatchExpresses(before: unknown, after: unknown): boolean {
  return jsonEqual(applyMergePatch(before, mergePatchBetween(before, after)), stripUndefined(after));
}

// ---------- paths

/** RFC 6901 pointer of a path: `["a/b", "c"]` → `/a~1b/c`. */
export function toPointer(path: string[]): string {
  return path.map((p) => `/${p.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

/** RFC 6901 pointer → path; `""` is the root. */
export function fromPointer(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .replace(/^\//, "")
    .split("/")
    .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** Whether the member at `path` is present in `value`. */
export function hasPath(value: unknown, path: string[]): boolean {
  let cur = value;
  for (const p of path) {
    if (!isPlainObject(cur) || !has(cur, p)) return false;
    cur = cur[p];
  }
  return true;
}

/** The value at `path`, or undefined. */
export function getPath(value: unknown, path: string[]): unknown {
  let cur = value;
  for (const p of path) {
    if (!isPlainObject(cur) || !has(cur, p)) return undefined;
    cur = cur[p];
  }
  return cur;
}
