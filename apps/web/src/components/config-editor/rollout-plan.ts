// Pure parts of the fleet-wide rollout form: which settings it offers (the schema's leaves),
// what the workers run today for each ("stealth ×5", "mixed: 4 ×3, 2 ×2"), and the merge
// patch made of the settings a person chose to set. A setting left at "keep current" is not
// in the patch at all, so every worker keeps its own value; a chosen value is sent even
// when it equals the schema's default (a worker that has it unset then gets it pinned).
import { getPath, isPlainObject, jsonEqual, type JsonObject } from "./diff";
import { schemaAt, titleAt } from "./schema-info";

export interface RolloutLeaf {
  /** Member names from the root, e.g. ["limits", "max"]. */
  path: string[];
  /** "Limits › Max": the schema's titles, member names where a level has none. */
  title: string;
  /** The member's schema as declared (its $refs resolved one level). */
  schema: JsonObject;
  description: string | null;
  /** The schema's default, or undefined. */
  default: unknown;
}

function isObjectSchema(s: JsonObject): boolean {
  return (s.type === "object" || s.type === undefined) && isPlainObject(s.properties);
}

/**
 * Every setting the form can offer one by one: members with their own properties are
 * walked into (a nested setting is chosen on its own, and a merge patch sets only it),
 * anything else (numbers, strings, enums, arrays, maps) is one setting, replaced whole.
 */
export function rolloutLeaves(root: unknown, maxDepth = 4): RolloutLeaf[] {
  const out: RolloutLeaf[] = [];
  const walk = (path: string[], depth: number) => {
    const node = schemaAt(root, path);
    if (!node || !isPlainObject(node.properties)) return;
    for (const key of Object.keys(node.properties)) {
      const p = [...path, key];
      const s = schemaAt(root, p);
      if (!s) continue;
      if (isObjectSchema(s) && depth < maxDepth) {
        walk(p, depth + 1);
        continue;
      }
      out.push({
        path: p,
        title: titleAt(root, p),
        schema: s,
        description: typeof s.description === "string" && s.description.trim() !== "" ? s.description : null,
        default: s.default,
      });
    }
  };
  walk([], 0);
  return out;
}

export interface ValueGroup {
  /** undefined: the worker's config does not set it. */
  value: unknown;
  set: boolean;
  count: number;
}

/** The workers' values at `path`, grouped, most common first (ties: first seen first). */
export function currentValues(configs: readonly unknown[], path: string[]): ValueGroup[] {
  const groups: ValueGroup[] = [];
  for (const c of configs) {
    const v = getPath(c, path);
    const set = v !== undefined;
    const g = groups.find((x) => x.set === set && (!set || jsonEqual(x.value, v)));
    if (g) g.count += 1;
    else groups.push({ value: v, set, count: 1 });
  }
  return groups
    .map((g, i) => ({ g, i }))
    .sort((a, b) => b.g.count - a.g.count || a.i - b.i)
    .map(({ g }) => g);
}

/** A value as a person reads it: strings bare, everything else as JSON, long ones cut. */
export function showValue(v: unknown, max = 40): string {
  const s = typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/**
 * "stealth ×5"; "not set ×5 (default fast)"; "mixed: 4 ×3, 2 ×2"; "mixed: fast ×2, not set ×1".
 * At most `maxGroups` values are named, the rest counted ("+3 more").
 */
export function describeCurrent(groups: readonly ValueGroup[], def: unknown, maxGroups = 4): string {
  if (groups.length === 0) return "no worker";
  const one = (g: ValueGroup) => (g.set ? `${showValue(g.value)} ×${g.count}` : `not set ×${g.count}`);
  const defNote = def !== undefined && groups.some((g) => !g.set) ? ` (default ${showValue(def)})` : "";
  if (groups.length === 1) return `${one(groups[0]!)}${defNote}`;
  const named = groups.slice(0, maxGroups).map(one).join(", ");
  const rest = groups.length > maxGroups ? `, +${groups.length - maxGroups} more` : "";
  return `mixed: ${named}${rest}${defNote}`;
}

/** What a "Set to" starts from: the most common value the workers have, else the default. */
export function startingValue(groups: readonly ValueGroup[], def: unknown): unknown {
  const firstSet = groups.find((g) => g.set);
  return firstSet ? firstSet.value : def;
}

/** The merge patch that sets each chosen path to its value (objects along the way created). */
export function patchFromChoices(choices: ReadonlyArray<{ path: string[]; value: unknown }>): JsonObject {
  const patch: JsonObject = {};
  for (const { path, value } of choices) {
    if (path.length === 0) continue;
    let cur = patch;
    for (const key of path.slice(0, -1)) {
      const next = Object.hasOwn(cur, key) && isPlainObject(cur[key]) ? (cur[key] as JsonObject) : {};
      Object.defineProperty(cur, key, { value: next, enumerable: true, writable: true, configurable: true });
      cur = next;
    }
    Object.defineProperty(cur, path.at(-1)!, { value, enumerable: true, writable: true, configurable: true });
  }
  return patch;
}

/** Key of a path for maps and React keys (member names may hold any character but NUL). */
export function pathKey(path: readonly string[]): string {
  return path.join("\u0000");
}
