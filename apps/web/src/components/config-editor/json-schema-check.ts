// A JSON Schema checker that interprets the schema instead of compiling it to code.
// Ajv compiles with `new Function`, which the console's Content-Security-Policy (no
// 'unsafe-eval') rightly forbids in the browser; the server keeps validating every write
// with Ajv 2020, so this only has to explain problems early, in the same Ajv shape
// (keyword, params, instancePath) that the plain-word messages are written for.
// Covers draft 2020-12 (and draft-07's `definitions`/array `items`) for what config and
// task schemas use: types, enums, bounds, lengths, patterns, common formats, objects,
// arrays, combinators, conditionals and local `$ref`s. Unknown keywords are ignored.
import { isNonFiniteToken } from "@fleet/schema";

import { isPlainObject, jsonEqual } from "./diff";

export interface SchemaError {
  /** JSON Pointer into the data, `""` for the root. */
  instancePath: string;
  /** JSON Pointer into the schema, `#/properties/slots/maximum`. */
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}

type Schema = Record<string, unknown> | boolean;

const FORMATS: Record<string, (s: string) => boolean> = {
  uri: (s) => /^[a-z][a-z0-9+.-]*:[^\s]*$/i.test(s) && safeUrl(s),
  url: (s) => /^[a-z][a-z0-9+.-]*:[^\s]*$/i.test(s) && safeUrl(s),
  "uri-reference": (s) => !/\s/.test(s),
  email: (s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s),
  hostname: (s) => s.length <= 253 && /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i.test(s),
  ipv4: (s) => /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(s),
  ipv6: (s) => s.includes(":") && /^[0-9a-f:.]+$/i.test(s),
  "date-time": (s) => /^\d{4}-\d{2}-\d{2}[tT ]\d{2}:\d{2}:\d{2}(\.\d+)?([zZ]|[+-]\d{2}:?\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)),
  time: (s) => /^\d{2}:\d{2}:\d{2}(\.\d+)?([zZ]|[+-]\d{2}:?\d{2})?$/.test(s),
  uuid: (s) => /^(urn:uuid:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
  regex: (s) => compiles(s),
};

function safeUrl(s: string): boolean {
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

function compiles(p: string): boolean {
  try {
    new RegExp(p, "u");
    return true;
  } catch {
    return false;
  }
}

/** Strings up to this long are checked against a pattern here; longer ones are left to the server. */
export const LOCAL_PATTERN_MAX_CHARS = 1000;

const riskCache = new Map<string, boolean>();

/**
 * True for a pattern this checker leaves to the server, which runs patterns under a time limit
 * (catalog-validation.ts): a quantified group that holds a quantifier or an alternation
 * (`(a+)+`, `(\w+\s?)*`, `(a|ab)*`: the forms the engine's matcher backtracks on without end),
 * or a back-reference. A pattern comes from the catalog in Redis and runs on what is typed
 * here: one of those would freeze the page.
 */
export function backtracksBadly(p: string): boolean {
  let risky = riskCache.get(p);
  if (risky === undefined) {
    risky = scanRisk(p);
    if (riskCache.size < 1000) riskCache.set(p, risky);
  }
  return risky;
}

function scanRisk(p: string): boolean {
  // per open group: whether it holds a quantifier, an alternation
  const frames: Array<{ quant: boolean; alt: boolean }> = [{ quant: false, alt: false }];
  const quantifierAt = (i: number): number => {
    const c = p[i];
    if (c === "*" || c === "+" || c === "?") return 1;
    if (c === "{") {
      const m = /^\{\d+(?:,\d*)?\}/.exec(p.slice(i, i + 24));
      if (m) return m[0].length;
    }
    return 0;
  };
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    const top = frames[frames.length - 1]!;
    if (c === "\\") {
      const n = p[i + 1];
      if (n !== undefined && (/[1-9]/.test(n) || n === "k")) return true;
      i++;
      continue;
    }
    if (c === "[") {
      for (i++; i < p.length && p[i] !== "]"; i++) if (p[i] === "\\") i++;
      continue;
    }
    if (c === "(") {
      frames.push({ quant: false, alt: false });
      // (?: (?= (?! (?<= (?<! (?<name>: the "?" is no quantifier
      if (p[i + 1] === "?") {
        i++;
        if (p[i + 1] === "<" && p[i + 2] !== "=" && p[i + 2] !== "!") while (i < p.length && p[i] !== ">") i++;
        else i++;
      }
      continue;
    }
    if (c === ")") {
      if (frames.length === 1) continue;
      const group = frames.pop()!;
      const q = quantifierAt(i + 1);
      if (q > 0 && (group.quant || group.alt)) return true;
      const parent = frames[frames.length - 1]!;
      parent.quant ||= group.quant || q > 0;
      parent.alt ||= group.alt;
      continue;
    }
    if (c === "|") {
      top.alt = true;
      continue;
    }
    const q = quantifierAt(i);
    if (q > 0) {
      top.quant = true;
      i += q - 1;
    }
  }
  return false;
}

/** Whether this checker tests `text` against pattern `p` itself (else the server does, on save). */
function checksHere(p: string, text: string): boolean {
  return text.length <= LOCAL_PATTERN_MAX_CHARS && !backtracksBadly(p);
}

const regexCache = new Map<string, RegExp | null>();
function regex(p: string): RegExp | null {
  let r = regexCache.get(p);
  if (r === undefined) {
    try {
      r = new RegExp(p, "u");
    } catch {
      r = null;
    }
    regexCache.set(p, r);
  }
  return r;
}

function esc(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function hasType(v: unknown, t: string): boolean {
  switch (t) {
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      // the string the API shows a Python NaN / Infinity as is a number too, so a config holding
      // one can still be edited (the server writes the number back where the worker had it)
      return (typeof v === "number" && Number.isFinite(v)) || isNonFiniteToken(v);
    case "object":
      return isPlainObject(v);
    default:
      return typeOf(v) === t;
  }
}

function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let cur: unknown = root;
  const pointer = ref.slice(1);
  if (pointer === "") return root;
  for (const raw of pointer.replace(/^\//, "").split("/")) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (!isPlainObject(cur) && !Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return typeof cur === "boolean" || isPlainObject(cur) ? (cur as Schema) : undefined;
}

const charCount = (s: string) => [...s].length;

class Checker {
  private depth = 0;
  constructor(private readonly root: Schema) {}

  check(schema: Schema, data: unknown, path: string, spath: string, out: SchemaError[]): void {
    if (schema === true) return;
    if (schema === false) {
      out.push({ instancePath: path, schemaPath: spath, keyword: "false schema", params: {}, message: "boolean schema is false" });
      return;
    }
    if (++this.depth > 64) {
      this.depth--;
      return; // a cyclic $ref: stop rather than overflow
    }
    try {
      this.checkObject(schema, data, path, spath, out);
    } finally {
      this.depth--;
    }
  }

  private ok(schema: Schema, data: unknown): boolean {
    const errs: SchemaError[] = [];
    this.check(schema, data, "", "#", errs);
    return errs.length === 0;
  }

  private checkObject(s: Record<string, unknown>, v: unknown, path: string, sp: string, out: SchemaError[]): void {
    const err = (keyword: string, params: Record<string, unknown>, message: string, at = path) =>
      out.push({ instancePath: at, schemaPath: `${sp}/${keyword}`, keyword, params, message });

    if (typeof s.$ref === "string") {
      const target = resolveRef(this.root, s.$ref);
      if (target !== undefined) this.check(target, v, path, `${sp}/$ref`, out);
    }

    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
      if (!types.some((t) => hasType(v, t))) {
        err("type", { type: Array.isArray(s.type) ? types.join(",") : types[0] }, `must be ${types.join(",")}`);
        return; // further keywords would only repeat the same problem
      }
    }
    if (Array.isArray(s.enum) && !s.enum.some((e) => jsonEqual(e, v))) {
      err("enum", { allowedValues: s.enum }, "must be equal to one of the allowed values");
    }
    if (s.const !== undefined && !jsonEqual(s.const, v)) err("const", { allowedValue: s.const }, "must be equal to constant");

    if (typeof v === "number") {
      if (typeof s.maximum === "number" && v > s.maximum) err("maximum", { comparison: "<=", limit: s.maximum }, `must be <= ${s.maximum}`);
      if (typeof s.minimum === "number" && v < s.minimum) err("minimum", { comparison: ">=", limit: s.minimum }, `must be >= ${s.minimum}`);
      if (typeof s.exclusiveMaximum === "number" && v >= s.exclusiveMaximum)
        err("exclusiveMaximum", { comparison: "<", limit: s.exclusiveMaximum }, `must be < ${s.exclusiveMaximum}`);
      if (typeof s.exclusiveMinimum === "number" && v <= s.exclusiveMinimum)
        err("exclusiveMinimum", { comparison: ">", limit: s.exclusiveMinimum }, `must be > ${s.exclusiveMinimum}`);
      if (typeof s.multipleOf === "number" && s.multipleOf > 0) {
        const q = v / s.multipleOf;
        if (Math.abs(q - Math.round(q)) > 1e-8) err("multipleOf", { multipleOf: s.multipleOf }, `must be multiple of ${s.multipleOf}`);
      }
    }

    if (typeof v === "string") {
      const n = charCount(v);
      if (typeof s.maxLength === "number" && n > s.maxLength) err("maxLength", { limit: s.maxLength }, `must NOT have more than ${s.maxLength} characters`);
      if (typeof s.minLength === "number" && n < s.minLength) err("minLength", { limit: s.minLength }, `must NOT have fewer than ${s.minLength} characters`);
      if (typeof s.pattern === "string" && checksHere(s.pattern, v)) {
        const r = regex(s.pattern);
        if (r && !r.test(v)) err("pattern", { pattern: s.pattern }, `must match pattern "${s.pattern}"`);
      }
      if (typeof s.format === "string") {
        const f = FORMATS[s.format];
        if (f && !f(v)) err("format", { format: s.format }, `must match format "${s.format}"`);
      }
    }

    if (Array.isArray(v)) this.checkArray(s, v, path, sp, out, err);
    if (isPlainObject(v)) this.checkProps(s, v, path, sp, out, err);

    if (Array.isArray(s.allOf)) for (const [i, sub] of s.allOf.entries()) this.check(sub as Schema, v, path, `${sp}/allOf/${i}`, out);
    if (Array.isArray(s.anyOf) && !s.anyOf.some((sub) => this.ok(sub as Schema, v))) {
      // The branch errors tell the person more than "must match a schema in anyOf".
      const sub: SchemaError[] = [];
      for (const [i, b] of s.anyOf.entries()) this.check(b as Schema, v, path, `${sp}/anyOf/${i}`, sub);
      out.push(...sub.filter((e) => e.keyword !== "type" || sub.every((x) => x.keyword === "type")).slice(0, 5));
      err("anyOf", {}, "must match a schema in anyOf");
    }
    if (Array.isArray(s.oneOf)) {
      const passing = s.oneOf.filter((sub) => this.ok(sub as Schema, v)).length;
      if (passing !== 1) err("oneOf", { passingSchemas: passing }, "must match exactly one schema in oneOf");
    }
    if (s.not !== undefined && this.ok(s.not as Schema, v)) err("not", {}, "must NOT be valid");
    if (s.if !== undefined) {
      const branch = this.ok(s.if as Schema, v) ? "then" : "else";
      if (s[branch] !== undefined) this.check(s[branch] as Schema, v, path, `${sp}/${branch}`, out);
    }
  }

  private checkArray(
    s: Record<string, unknown>,
    v: unknown[],
    path: string,
    sp: string,
    out: SchemaError[],
    err: (k: string, p: Record<string, unknown>, m: string) => void,
  ): void {
    if (typeof s.maxItems === "number" && v.length > s.maxItems) err("maxItems", { limit: s.maxItems }, `must NOT have more than ${s.maxItems} items`);
    if (typeof s.minItems === "number" && v.length < s.minItems) err("minItems", { limit: s.minItems }, `must NOT have fewer than ${s.minItems} items`);
    if (s.uniqueItems === true) {
      outer: for (let i = 0; i < v.length; i++)
        for (let j = 0; j < i; j++)
          if (jsonEqual(v[i], v[j])) {
            err("uniqueItems", { i: j, j: i }, `must NOT have duplicate items (items ## ${j} and ${i} are identical)`);
            break outer;
          }
    }
    // 2020-12 prefixItems + items; draft-07 array-form items + additionalItems.
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
    const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
    if (rest === false && v.length > prefix.length) {
      // Ajv's wording for "no items beyond the listed ones".
      err("items", { limit: prefix.length }, `must NOT have more than ${prefix.length} items`);
    }
    v.forEach((item, i) => {
      const at = `${path}/${i}`;
      if (i < prefix.length) this.check(prefix[i] as Schema, item, at, `${sp}/${Array.isArray(s.prefixItems) ? "prefixItems" : "items"}/${i}`, out);
      else if (rest !== undefined && rest !== false) this.check(rest as Schema, item, at, `${sp}/items`, out);
    });
    if (s.contains !== undefined && !v.some((item) => this.ok(s.contains as Schema, item))) {
      err("contains", {}, "must contain at least 1 valid item");
    }
  }

  private checkProps(
    s: Record<string, unknown>,
    v: Record<string, unknown>,
    path: string,
    sp: string,
    out: SchemaError[],
    err: (k: string, p: Record<string, unknown>, m: string, at?: string) => void,
  ): void {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    if (Array.isArray(s.required)) {
      for (const r of s.required) {
        if (typeof r === "string" && !keys.includes(r)) err("required", { missingProperty: r }, `must have required property '${r}'`);
      }
    }
    if (isPlainObject(s.dependentRequired)) {
      for (const [k, deps] of Object.entries(s.dependentRequired)) {
        if (!keys.includes(k) || !Array.isArray(deps)) continue;
        for (const d of deps) if (typeof d === "string" && !keys.includes(d)) err("required", { missingProperty: d }, `must have required property '${d}'`);
      }
    }
    if (typeof s.maxProperties === "number" && keys.length > s.maxProperties)
      err("maxProperties", { limit: s.maxProperties }, `must NOT have more than ${s.maxProperties} properties`);
    if (typeof s.minProperties === "number" && keys.length < s.minProperties)
      err("minProperties", { limit: s.minProperties }, `must NOT have fewer than ${s.minProperties} properties`);
    const props = isPlainObject(s.properties) ? s.properties : {};
    const patterns = isPlainObject(s.patternProperties) ? Object.entries(s.patternProperties) : [];
    for (const k of keys) {
      const at = `${path}/${esc(k)}`;
      let matched = false;
      if (Object.hasOwn(props, k)) {
        matched = true;
        this.check(props[k] as Schema, v[k], at, `${sp}/properties/${esc(k)}`, out);
      }
      for (const [p, sub] of patterns) {
        // a pattern left to the server counts as matching: no "not allowed here" it cannot vouch for
        if (!checksHere(p, k)) {
          matched = true;
          continue;
        }
        const r = regex(p);
        if (r?.test(k)) {
          matched = true;
          this.check(sub as Schema, v[k], at, `${sp}/patternProperties/${esc(p)}`, out);
        }
      }
      if (s.propertyNames !== undefined) this.check(s.propertyNames as Schema, k, at, `${sp}/propertyNames`, out);
      if (!matched && s.additionalProperties !== undefined) {
        if (s.additionalProperties === false) err("additionalProperties", { additionalProperty: k }, "must NOT have additional properties");
        else this.check(s.additionalProperties as Schema, v[k], at, `${sp}/additionalProperties`, out);
      }
    }
  }
}

/** Every problem of `data` against `schema` (resolving `$ref`s against `root`, the schema itself by default). */
export function checkSchema(schema: unknown, data: unknown, root: unknown = schema): SchemaError[] {
  const s = typeof schema === "boolean" || isPlainObject(schema) ? (schema as Schema) : true;
  const r = typeof root === "boolean" || isPlainObject(root) ? (root as Schema) : s;
  const out: SchemaError[] = [];
  new Checker(r).check(s, data, "", "#", out);
  return out;
}
