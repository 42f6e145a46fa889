// The task-id rule as a table (see src/task-body.ts): what a reserve registers for each body.
// Shared by the unit test of the TypeScript function, the contract suite (the memory backend
// runs the TypeScript function, Redis runs src/lua/reserve-6.lua) and the cross-language test
// (the Python reference's own queue_reserve).

/**
 * What the Python reference does with the body:
 * - `same`: registers exactly `id` (or, when `id` is null, returns it unregistered: no "id" or "");
 * - `random`: cannot parse it and registers a random uuid4 hex (the schema document promises "left unregistered");
 * - `repr`: registers the repr of a container id (we treat a container as no usable id);
 * - `raises`: its reserve fails (the id cannot be encoded for Redis), losing the body.
 */
export type PythonOutcome = "same" | "random" | "repr" | "raises";

export interface TaskIdCase {
  name: string;
  body: Buffer;
  id: string | null;
  python: PythonOutcome;
}

const t = (name: string, body: string | Buffer, id: string | null, python: PythonOutcome = "same"): TaskIdCase => ({
  name,
  body: typeof body === "string" ? Buffer.from(body, "utf8") : body,
  id,
  python,
});

export const TASK_ID_CASES: TaskIdCase[] = [
  t("a string", '{"id": "abc", "payload": {}}', "abc"),
  t("non-ASCII escapes and raw UTF-8", '{"id": "caf\\u00e9-\\ud83d\\ude00-é"}', "café-😀-é"),
  t("every simple escape", '{"id": "a\\"b\\\\c\\/d\\b\\f\\n\\r\\t"}', 'a"b\\c/d\b\f\n\r\t'),
  t("NUL escaped", '{"id": "a\\u0000b"}', "a\u0000b"),
  t("an integer", '{"id": 7, "payload": null}', "7"),
  t("a negative integer", '{"id": -42}', "-42"),
  t("minus zero integer", '{"id": -0}', "0"),
  t("an integer beyond 2^53", '{"id": 12345678901234567890}', "12345678901234567890"),
  t("a 300-digit integer", `{"id": ${"9".repeat(300)}}`, "9".repeat(300)),
  t("a 4300-digit integer", `{"id": ${"7".repeat(4300)}}`, "7".repeat(4300)),
  t("1.0", '{"id": 1.0}', "1.0"),
  t("1.5", '{"id": 1.5}', "1.5"),
  t("1e-07", '{"id": 1e-07}', "1e-07"),
  t("0.0001", '{"id": 0.0001}', "0.0001"),
  t("1E5", '{"id": 1E5}', "100000.0"),
  t("1e16", '{"id": 1e16}', "1e+16"),
  t("9999999999999998.0", '{"id": 9999999999999998.0}', "9999999999999998.0"),
  t("0.1 written long", '{"id": 0.1000000000000000055511151231257827}', "0.1"),
  t("a float of 18 digits", '{"id": 123456789012345678.0}', "1.2345678901234568e+17"),
  t("-0.0", '{"id": -0.0}', "-0.0"),
  t("the smallest subnormal", '{"id": 5e-324}', "5e-324"),
  t("the largest double", '{"id": 1.7976931348623157e308}', "1.7976931348623157e+308"),
  t("overflow to inf", '{"id": 1E400}', "inf"),
  t("underflow to zero", '{"id": -1e-400}', "-0.0"),
  t("NaN", '{"id": NaN}', "nan"),
  t("Infinity", '{"id": Infinity}', "inf"),
  t("-Infinity", '{"id": -Infinity}', "-inf"),
  t("true", '{"id": true}', "True"),
  t("false", '{"id": false}', "False"),
  t("null", '{"id": null}', "None"),
  t("the last of repeated ids", '{"id": "first", "id": "second"}', "second"),
  t("an escaped key", '{"i\\u0064": 5}', "5"),
  t("nested ids do not count", '{"payload": {"id": "inner"}, "x": [{"id": 1}]}', null),
  t("Python's whitespace around it all", ' \t\n\r{ "id" : "ws" } \r\n', "ws"),
  t("NaN elsewhere in the body", '{"id": "n", "payload": {"v": NaN, "w": [Infinity, -Infinity]}}', "n"),
  t("a long payload", `{"payload": "${"x".repeat(100_000)}", "id": "long"}`, "long"),
  t("no id", '{"payload": 1}', null),
  t("an empty id", '{"id": "", "payload": 1}', null),
  t("an empty object", "{}", null),
  t("a list id", '{"id": [1, "a"]}', null, "repr"),
  t("an object id", '{"id": {"b": 1}}', null, "repr"),
  t("a lone high surrogate", '{"id": "\\ud800"}', null, "raises"),
  t("a lone low surrogate", '{"id": "x\\udc00"}', null, "raises"),
  t("not JSON", "not json", null, "random"),
  t("a list", "[1, 2]", null, "random"),
  t("a string document", '"id"', null, "random"),
  t("not UTF-8", Buffer.from([0xff, 0xfe, 0x80, 0x41]), null, "random"),
  t("an object that is not UTF-8 inside", Buffer.concat([Buffer.from('{"id": "a", "p": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), null, "random"),
  t("an encoded surrogate", Buffer.concat([Buffer.from('{"id": "'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), null, "random"),
  t("an overlong encoding", Buffer.concat([Buffer.from('{"id": "'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), null, "random"),
  t("a UTF-8 BOM", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id": "bom"}')]), null, "random"),
  t("a trailing comma", '{"id": "a",}', null, "random"),
  t("extra data", '{"id": "a"} {}', null, "random"),
  t("a raw control character in a string", '{"id": "a\tb"}', null, "random"),
  t("a bad escape", '{"id": "a\\x41"}', null, "random"),
  t("a short \\u escape", '{"id": "\\u00e"}', null, "random"),
  t("a leading zero", '{"id": 01}', null, "random"),
  t("a bare fraction", '{"id": 1.}', null, "random"),
  t("an empty exponent", '{"id": 1e}', null, "random"),
  t("a plus sign", '{"id": +1}', null, "random"),
  t("single quotes", "{'id': 'a'}", null, "random"),
  t("nan in lower case", '{"id": nan}', null, "random"),
  t("an unterminated object", '{"id": "a"', null, "random"),
  t("a 4301-digit integer elsewhere", `{"id": "ok", "n": ${"1".repeat(4301)}}`, null, "random"),
  t("a form feed as whitespace", '\f{"id": "a"}', null, "random"),
  t("a non-breaking space as whitespace", '{"id":\u00a0"a"}', null, "random"),
];

/**
 * Bodies for a differential test of the rule: objects with ids of every kind, nested values,
 * odd whitespace, escaped keys, repeated ids, then (sometimes) one random edit that may break
 * them. Deterministic for a seed.
 */
export function generatedTaskBodies(seed: number, n: number): Buffer[] {
  let state = seed;
  const rnd = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const atoms = [
    '"id"',
    '"x"',
    '"\\u0069d"',
    "1",
    "-0",
    "0.5",
    "1e5",
    "1E-2",
    "NaN",
    "Infinity",
    "-Infinity",
    "true",
    "false",
    "null",
    '"é"',
    '"\\ud83d\\ude00"',
    '"\\ud800"',
    '""',
    "[]",
    "{}",
    "12345678901234567890",
    "01",
    "1.",
    "+1",
    '"a\\tb"',
    '"\\x"',
  ];
  const ws = () => pick(["", " ", "\n", "\t", "\r\n", "  "]);
  const value = (d: number): string => {
    const r = rnd();
    if (d > 3 || r < 0.5) return pick(atoms);
    if (r < 0.75) return `[${ws()}${Array.from({ length: Math.floor(rnd() * 3) }, () => value(d + 1)).join(`${ws()},${ws()}`)}${ws()}]`;
    return object(d + 1);
  };
  const object = (d: number): string => {
    const members = Array.from({ length: Math.floor(rnd() * 4) }, () => `${pick(['"id"', '"payload"', '"i\\u0064"', '"a"', '"id "'])}${ws()}:${ws()}${value(d)}`);
    return `${ws()}{${ws()}${members.join(`${ws()},${ws()}`)}${ws()}}${ws()}`;
  };
  const mutate = (s: string): string => {
    if (rnd() < 0.7) return s;
    const i = Math.floor(rnd() * (s.length + 1));
    const r = rnd();
    if (r < 0.3) return s.slice(0, i) + s.slice(i + 1);
    if (r < 0.6) return s.slice(0, i) + pick([",", "}", "]", '"', ":", "x", "\\", "\u0000", "\u00e9"]) + s.slice(i);
    return s.slice(0, i) + s.slice(i).replace(/^./s, pick(["0", "{", "["]));
  };
  return Array.from({ length: n }, () => {
    const text = mutate(object(0));
    return rnd() < 0.05 ? Buffer.concat([Buffer.from(text), Buffer.from([0xff])]) : Buffer.from(text);
  });
}
