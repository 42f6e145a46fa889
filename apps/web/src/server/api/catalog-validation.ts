// Validates config writes and task payloads against the JSON Schemas an automation
// declares in `fleet:catalog` (Pydantic emits draft 2020-12). Compiled validators are
// cached by the catalog document's bytes, so an unchanged catalog compiles once per
// process and a changed one is picked up on the next request.
//
// A schema's `pattern` is a regular expression from Redis run on values from the request, by
// the engine's backtracking matcher: `^(a+)+$` against forty a's and a "!" takes minutes, and
// would hold this process (every request, the live stream, the watch) all that time. So a
// schema that holds a pattern or a format is run under a time limit (node:vm's timeout stops
// even a match in progress): a batch of values in one run, PATTERN_BATCH_MS and a little per
// value; a batch that overruns is checked again value by value, PATTERN_VALUE_MS each, and the
// first value that overruns is refused (422) with the reason; nothing is written.
import { createHash } from "node:crypto";
import vm from "node:vm";

import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { ErrorDetail } from "@fleet/schema";

import { conflict, jsonPointer } from "./errors";
import { parseCatalogDoc } from "./serialize";

export type SchemaRole = "config" | "task_payload";

type Compiled = ValidateFunction | null | { broken: string };

/** Time a batch of values may take against a schema with patterns: this, plus PATTERN_PER_VALUE_MS a value. */
export const PATTERN_BATCH_MS = 100;
const PATTERN_PER_VALUE_MS = 0.2;
/** Time one value may take against it once its batch overran. */
export const PATTERN_VALUE_MS = 100;

/** Validators whose schema runs a regular expression from the catalog (a pattern, or a format checked by one). */
const guardedValidators = new WeakSet<ValidateFunction>();

/** True when the schema holds a `pattern`, `patternProperties` or `format` key anywhere (or nests too deep to tell). */
function runsRegexps(schema: unknown, depth = 0): boolean {
  if (typeof schema !== "object" || schema === null) return false;
  if (depth > 200) return true;
  if (Array.isArray(schema)) return schema.some((s) => runsRegexps(s, depth + 1));
  for (const [k, v] of Object.entries(schema)) {
    if (k === "pattern" || k === "patternProperties" || k === "format") return true;
    if (runsRegexps(v, depth + 1)) return true;
  }
  return false;
}

// One context for every guarded run: the function to run is handed in, called, handed back.
const guardContext = vm.createContext({ run: null as (() => unknown) | null });
const guardScript = new vm.Script("run()");

class TookTooLong extends Error {}

/** `fn()` stopped after `ms` milliseconds (TookTooLong), wherever it is, a regular expression's match included. */
function withinTime<T>(fn: () => T, ms: number): T {
  guardContext.run = fn;
  try {
    return guardScript.runInContext(guardContext, { timeout: Math.max(1, Math.ceil(ms)) }) as T;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") throw new TookTooLong();
    throw err;
  } finally {
    guardContext.run = null;
  }
}

interface CacheEntry {
  config?: Compiled;
  task_payload?: Compiled;
  corrupt: boolean;
  doc: ReturnType<typeof parseCatalogDoc>["doc"];
}

const MAX_CACHED_DOCS = 512;
const cache = new Map<string, CacheEntry>();

function entryFor(raw: Buffer): CacheEntry {
  const key = createHash("sha1").update(raw).digest("hex");
  let entry = cache.get(key);
  if (entry) {
    // refresh its place so the map iterates least recently used first
    cache.delete(key);
    cache.set(key, entry);
    return entry;
  }
  const { doc, corrupt } = parseCatalogDoc(raw);
  entry = { doc, corrupt };
  cache.set(key, entry);
  if (cache.size > MAX_CACHED_DOCS) cache.delete(cache.keys().next().value as string);
  return entry;
}

function compile(schema: unknown): Compiled {
  // One Ajv per schema: catalog schemas of different automations may reuse an `$id`.
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  addFormats(ajv);
  try {
    const validate = ajv.compile(schema as object | boolean);
    if (runsRegexps(schema)) guardedValidators.add(validate);
    return validate;
  } catch (err) {
    return { broken: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The validator for one schema of an automation: null when anything goes (no catalog
 * entry, or the entry declares no schema for it). A catalog entry that is present but
 * unreadable, or a schema that does not compile, refuses the write (409) rather than
 * letting unchecked data through.
 */
export function catalogValidator(automationType: string, raw: Buffer | null, role: SchemaRole): ValidateFunction | null {
  if (raw === null) return null;
  const entry = entryFor(raw);
  if (entry.corrupt || entry.doc === null) {
    throw conflict(`The catalog entry of automation '${automationType}' is not a readable JSON document, so its ${label(role)} cannot be checked; fix fleet:catalog first.`);
  }
  let compiled = entry[role];
  if (compiled === undefined) {
    const schema = entry.doc[role];
    compiled = schema === null ? null : compile(schema);
    entry[role] = compiled;
  }
  if (compiled !== null && "broken" in compiled) {
    throw conflict(`The catalog's ${label(role)} schema of automation '${automationType}' is not a valid JSON Schema (${compiled.broken}); fix fleet:catalog first.`);
  }
  return compiled;
}

function label(role: SchemaRole): string {
  return role === "config" ? "config" : "task payload";
}

/** Ajv errors as `{path, message}`, pointing at the field itself where Ajv points at its parent. */
export function ajvDetails(errors: ErrorObject[] | null | undefined, prefix = ""): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    let path = e.instancePath;
    let message = e.message ?? "is invalid";
    const params = e.params as Record<string, unknown>;
    if (e.keyword === "required" && typeof params.missingProperty === "string") {
      path += jsonPointer([params.missingProperty]);
      message = "is required";
    } else if (e.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
      path += jsonPointer([params.additionalProperty]);
      message = "is not allowed here";
    } else if (e.keyword === "unevaluatedProperties" && typeof params.unevaluatedProperty === "string") {
      path += jsonPointer([params.unevaluatedProperty]);
      message = "is not allowed here";
    }
    const detail = { path: prefix + path, message };
    const key = `${detail.path}\u0000${detail.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(detail);
    }
  }
  return out;
}

/** Checks one value; the failures as details (empty when it passes). */
export function checkAgainst(validate: ValidateFunction | null, value: unknown, prefix = ""): ErrorDetail[] {
  return checkEach(validate, [{ value, prefix }])[0]!;
}

/**
 * Checks each value, its failures as details prefixed with its `prefix` (an empty list when it
 * passes), in one run under a time limit when the schema runs regular expressions (see the
 * header). A value that takes too long is refused with the reason; the values after it in
 * that batch are left unchecked (empty lists): the write is refused anyway.
 */
export function checkEach(validate: ValidateFunction | null, items: ReadonlyArray<{ value: unknown; prefix?: string }>): ErrorDetail[][] {
  if (validate === null) return items.map(() => []);
  const one = (it: { value: unknown; prefix?: string }): ErrorDetail[] => (validate(it.value) ? [] : ajvDetails(validate.errors, it.prefix ?? ""));
  if (!guardedValidators.has(validate)) return items.map(one);
  try {
    return withinTime(() => items.map(one), PATTERN_BATCH_MS + PATTERN_PER_VALUE_MS * items.length);
  } catch (err) {
    if (!(err instanceof TookTooLong)) throw err;
  }
  const out: ErrorDetail[][] = [];
  for (const it of items) {
    try {
      out.push(withinTime(() => one(it), PATTERN_VALUE_MS));
    } catch (err) {
      if (!(err instanceof TookTooLong)) throw err;
      out.push([
        {
          path: it.prefix ?? "",
          message: `could not be checked against the catalog's schema within ${PATTERN_VALUE_MS} ms (a "pattern" that backtracks without end on this value?); change the value, or the pattern in fleet:catalog`,
        },
      ]);
      break;
    }
  }
  while (out.length < items.length) out.push([]);
  return out;
}

/** Each worker's new config checked in one run (checkEach), the failures as details naming the worker. */
export function workerConfigDetails(validate: ValidateFunction | null, writes: ReadonlyArray<{ workerId: string; config: unknown }>): ErrorDetail[] {
  const checked = checkEach(
    validate,
    writes.map((w) => ({ value: w.config })),
  );
  return writes.flatMap((w, i) => checked[i]!.map((d) => ({ path: d.path, message: `worker ${w.workerId}: ${d.message}` })));
}
