// A strict little reader of the Prometheus text format 0.0.4, for tests: it rejects what
// a Prometheus server would reject (bad names, bad escapes, samples before their TYPE,
// a family split in two, duplicate series) and returns the samples.

export interface ParsedFamily {
  name: string;
  help: string | null;
  type: string | null;
  samples: Array<{ labels: Record<string, string>; value: number }>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;

export function parseExposition(text: string): Map<string, ParsedFamily> {
  if (text.length > 0 && !text.endsWith("\n")) throw new Error("the exposition must end with a line feed");
  const families = new Map<string, ParsedFamily>();
  const series = new Set<string>();
  let current: string | null = null;
  const family = (name: string) => {
    if (current !== name) {
      if (families.has(name)) throw new Error(`family ${name} is split in two`);
      current = name;
      families.set(name, { name, help: null, type: null, samples: [] });
    }
    return families.get(name)!;
  };

  text.split("\n").forEach((line, i) => {
    const where = `line ${i + 1}`;
    if (line === "") return;
    if (line.startsWith("#")) {
      const m = /^# (HELP|TYPE) ([^ ]+) (.*)$/.exec(line);
      if (!m) return; // a plain comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name) || NAME.exec(name)![0] !== name) throw new Error(`${where}: bad metric name ${name}`);
      const f = family(name);
      if (kind === "HELP") {
        if (f.help !== null) throw new Error(`${where}: second HELP for ${name}`);
        f.help = unescapeExposition(rest, false, where);
      } else {
        if (f.type !== null || f.samples.length > 0) throw new Error(`${where}: TYPE for ${name} after its samples`);
        if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(rest)) throw new Error(`${where}: bad type ${rest}`);
        f.type = rest;
      }
      return;
    }
    const name = NAME.exec(line)?.[0];
    if (!name) throw new Error(`${where}: no metric name in ${JSON.stringify(line)}`);
    let pos = name.length;
    const labels: Record<string, string> = {};
    if (line[pos] === "{") {
      pos++;
      while (line[pos] !== "}") {
        const label = LABEL.exec(line.slice(pos))?.[0];
        if (!label) throw new Error(`${where}: bad label name`);
        pos += label.length;
        if (line.slice(pos, pos + 2) !== '="') throw new Error(`${where}: expected =" after ${label}`);
        pos += 2;
        let raw = "";
        while (line[pos] !== '"') {
          if (pos >= line.length) throw new Error(`${where}: unterminated label value`);
          if (line[pos] === "\\") {
            raw += line.slice(pos, pos + 2);
            pos += 2;
          } else raw += line[pos++];
        }
        pos++;
        if (label in labels) throw new Error(`${where}: label ${label} twice`);
        labels[label] = unescapeExposition(raw, true, where);
        if (line[pos] === ",") pos++;
        else if (line[pos] !== "}") throw new Error(`${where}: expected , or } after a label`);
      }
      pos++;
    }
    const m = /^ ([^ ]+)( -?\d+)?$/.exec(line.slice(pos));
    if (!m) throw new Error(`${where}: bad value part ${JSON.stringify(line.slice(pos))}`);
    const valueText = m[1]!;
    const value = valueText === "+Inf" ? Infinity : valueText === "-Inf" ? -Infinity : Number(valueText);
    if (Number.isNaN(value) && valueText !== "NaN") throw new Error(`${where}: bad value ${valueText}`);
    const f = family(name);
    if (f.type === null) throw new Error(`${where}: sample of ${name} before its TYPE`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (series.has(key)) throw new Error(`${where}: duplicate series ${key}`);
    series.add(key);
    f.samples.push({ labels, value });
  });
  return families;
}

function unescapeExposition(s: string, quoteAllowed: boolean, where: string): string {
  return s.replace(/\\(.)/g, (_m, c: string) => {
    if (c === "\\") return "\\";
    if (c === "n") return "\n";
    if (c === '"' && quoteAllowed) return '"';
    throw new Error(`${where}: bad escape \\${c}`);
  });
}

/** The value of the one sample of `name` whose labels are exactly `labels`. */
export function sampleValue(families: Map<string, ParsedFamily>, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  return families.get(name)?.samples.find((s) => JSON.stringify(Object.entries(s.labels).sort()) === want)?.value;
}
