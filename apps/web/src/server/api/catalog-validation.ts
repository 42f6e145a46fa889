// Validates config writes and task payloads against the JSON Schemas an automation
// declares in `fleet:catalog` (Pydantic emits draft 2020-12). Compiled validators are
// cached by the catalog document's bytes, so an unchanged catalog compiles once per
// process and a changed one is picked up on the next request.
import { createHash } from "node:crypto";

import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { ErrorDetail } from "@fleet/schema";

import { conflict, jsonPointer } from "./errors";
import { parseCatalogDoc } from "./serialize";

export type SchemaRole = "config" | "task_payload";

type Compiled = ValidateFunction | null | { broken: string };

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
    return ajv.compile(schema as object | boolean);
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
  if (validate === null) return [];
  if (validate(value)) return [];
  return ajvDetails(validate.errors, prefix);
}
