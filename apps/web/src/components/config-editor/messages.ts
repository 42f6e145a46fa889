// Validation messages in plain words for people who do not read JSON Schema: Ajv says
// "must be <= 64", the editor says "Must be at most 64.". Used for the form's live
// validation (rjsf's transformErrors) and for the server's 422 details alike.
import type { ErrorSchema, RJSFValidationError } from "@rjsf/utils";

import { fromPointer } from "./diff";

const FORMAT_NAMES: Record<string, string> = {
  uri: "a web address (like https://example.com/page)",
  url: "a web address (like https://example.com/page)",
  "uri-reference": "a web address or path",
  email: "an email address",
  "idn-email": "an email address",
  hostname: "a host name (like example.com)",
  ipv4: "an IPv4 address (like 10.0.0.1)",
  ipv6: "an IPv6 address",
  "date-time": "a date and time (like 2026-01-31T12:00:00Z)",
  date: "a date (like 2026-01-31)",
  time: "a time (like 12:00:00)",
  duration: "a duration (like PT30S)",
  uuid: "a UUID",
  regex: "a regular expression",
};

const TYPE_NAMES: Record<string, string> = {
  integer: "a whole number",
  number: "a number",
  string: "text",
  boolean: "on or off (true or false)",
  array: "a list",
  object: "a group of settings (a JSON object)",
  null: "empty (null)",
};

function show(v: unknown): string {
  return typeof v === "string" ? `"${v}"` : JSON.stringify(v);
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function sentence(s: string): string {
  const t = s.trim();
  if (t === "") return t;
  const cap = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?]$/.test(cap) ? cap : `${cap}.`;
}

function typeList(t: unknown): string {
  const names = (Array.isArray(t) ? t : [t]).map((x) => TYPE_NAMES[String(x)] ?? String(x));
  return names.join(" or ");
}

/** One Ajv error (keyword + params) in plain words, or null when the keyword is not one we know. */
export function plainMessage(keyword: string | undefined, params: Record<string, unknown> | undefined): string | null {
  const p = params ?? {};
  switch (keyword) {
    case "maximum":
      return `Must be at most ${show(p.limit)}.`;
    case "exclusiveMaximum":
      return `Must be less than ${show(p.limit)}.`;
    case "minimum":
      return `Must be at least ${show(p.limit)}.`;
    case "exclusiveMinimum":
      return `Must be more than ${show(p.limit)}.`;
    case "multipleOf":
      return `Must be a multiple of ${show(p.multipleOf)}.`;
    case "type":
      return `Must be ${typeList(p.type)}.`;
    case "required":
      return "Required: this setting must have a value.";
    case "enum": {
      const allowed = Array.isArray(p.allowedValues) ? p.allowedValues : [];
      return allowed.length > 0 ? `Must be one of: ${allowed.map(show).join(", ")}.` : "Must be one of the listed choices.";
    }
    case "const":
      return `Must be exactly ${show(p.allowedValue)}.`;
    case "maxLength":
      return `Must be at most ${plural(Number(p.limit), "character", "characters")} long.`;
    case "minLength":
      return Number(p.limit) === 1 ? "Must not be empty." : `Must be at least ${plural(Number(p.limit), "character", "characters")} long.`;
    case "pattern":
      return `Must match the pattern ${String(p.pattern)}.`;
    case "format": {
      const f = String(p.format);
      return `Must be ${FORMAT_NAMES[f] ?? `a valid ${f}`}.`;
    }
    case "maxItems":
    case "items":
      return `Must have at most ${plural(Number(p.limit), "item", "items")}.`;
    case "minItems":
      return `Must have at least ${plural(Number(p.limit), "item", "items")}.`;
    case "uniqueItems":
      return "Must not list the same item twice.";
    case "additionalProperties":
    case "unevaluatedProperties":
      return "Is not a setting this automation knows.";
    case "anyOf":
      return "Must match one of the allowed forms.";
    case "oneOf":
      return "Must match exactly one of the allowed forms.";
    case "not":
      return "Is a value that is not allowed here.";
    case "contains":
      return "Must contain at least one allowed item.";
    case "maxProperties":
      return `Must have at most ${plural(Number(p.limit), "entry", "entries")}.`;
    case "minProperties":
      return `Must have at least ${plural(Number(p.limit), "entry", "entries")}.`;
    default:
      return null;
  }
}

/** rjsf's transformErrors: the same errors, with messages and stacks in plain words. */
export function transformErrors(errors: RJSFValidationError[]): RJSFValidationError[] {
  return errors.map((e) => {
    const message = plainMessage(e.name, e.params as Record<string, unknown> | undefined) ?? sentence(e.message ?? "Is not valid.");
    const where = propertyLabel(e.property);
    return { ...e, message, stack: where ? `${where}: ${message}` : message };
  });
}

/** `.limits.max` / `['a b']` (rjsf's property notation) → `limits › max`. */
export function propertyLabel(property: string | undefined): string {
  if (!property || property === ".") return "";
  const parts: string[] = [];
  const re = /\.([^.[\]]+)|\[['"]((?:[^'"\\]|\\.)*)['"]\]|\[(\d+)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(property)) !== null) parts.push(m[1] ?? m[2] ?? m[3] ?? "");
  return parts.length > 0 ? parts.join(" › ") : property.replace(/^\./, "");
}

/** A message Ajv wrote on the server ("must be <= 64") in the same plain words. */
export function humanizeServerMessage(message: string): string {
  const m = message.trim();
  const prefixed = /^(worker .+?): (.*)$/.exec(m);
  if (prefixed) return `${prefixed[1]}: ${humanizeServerMessage(prefixed[2]!)}`;
  const rules: Array<[RegExp, (x: RegExpExecArray) => string]> = [
    [/^must be <= (.+)$/, (x) => `Must be at most ${x[1]}.`],
    [/^must be < (.+)$/, (x) => `Must be less than ${x[1]}.`],
    [/^must be >= (.+)$/, (x) => `Must be at least ${x[1]}.`],
    [/^must be > (.+)$/, (x) => `Must be more than ${x[1]}.`],
    [/^must be (integer|number|string|boolean|array|object|null)$/, (x) => `Must be ${typeList(x[1])}.`],
    [/^must be equal to one of the allowed values$/, () => "Must be one of the listed choices."],
    [/^must NOT have more than (\d+) characters$/, (x) => `Must be at most ${plural(Number(x[1]), "character", "characters")} long.`],
    [
      /^must NOT have fewer than (\d+) characters$/,
      (x) => (Number(x[1]) === 1 ? "Must not be empty." : `Must be at least ${plural(Number(x[1]), "character", "characters")} long.`),
    ],
    [/^must match format "(.+)"$/, (x) => `Must be ${FORMAT_NAMES[x[1]!] ?? `a valid ${x[1]}`}.`],
    [/^is required$/, () => "Required: this setting must have a value."],
    [/^is not allowed here$/, () => "Is not a setting this automation knows."],
  ];
  for (const [re, fn] of rules) {
    const x = re.exec(m);
    if (x) return fn(x);
  }
  return sentence(m);
}

export interface PathMessage {
  path: string;
  message: string;
}

/**
 * Server details (`{path: "/slots", message}`) as rjsf's ErrorSchema, so they show beside
 * the fields they name; root-level ones sit on the form itself.
 */
export function detailsToErrorSchema(details: PathMessage[]): ErrorSchema {
  const root: ErrorSchema = {};
  for (const d of details) {
    let node = root as Record<string, unknown>;
    for (const key of fromPointer(d.path)) {
      if (!Object.hasOwn(node, key)) Object.defineProperty(node, key, { value: {}, enumerable: true, writable: true, configurable: true });
      node = node[key] as Record<string, unknown>;
    }
    const list = (node.__errors as string[] | undefined) ?? [];
    list.push(humanizeServerMessage(d.message));
    node.__errors = list;
  }
  return root;
}
