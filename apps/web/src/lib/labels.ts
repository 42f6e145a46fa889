// Words for people: plain names, with a one-line explanation, for the raw keys Fleet's
// workers report (stats frames, hardware). Pages lead with the plain name and keep the raw
// key visible beside it (small mono text or a title), so an engineer still finds `slots_target`.

export interface KeyLabel {
  /** "Slots wanted". */
  label: string;
  /** One line: what it means. */
  hint?: string;
}

const STATS: Record<string, KeyLabel> = {
  ts: { label: "Reported", hint: "When the worker sent this report." },
  state: { label: "State", hint: "What the worker says it is doing." },
  slots_running: { label: "Slots running", hint: "Slots started and alive." },
  slots_busy: { label: "Slots busy", hint: "Slots working on a task right now." },
  slots_target: { label: "Slots wanted", hint: "How many slots its config asks for." },
  tasks_done: { label: "Tasks done", hint: "Runs that succeeded since the worker started." },
  tasks_failed: { label: "Tasks failed", hint: "Runs that failed since it started (each retry counts)." },
  tasks_retried: { label: "Tasks retried", hint: "Failed runs put back for another try." },
  tasks_dead: { label: "Tasks given up", hint: "Moved to the dead letters after their last attempt." },
  crashes: { label: "Slot crashes", hint: "Slots that died and were started again." },
  latency_ms: { label: "Task time, average (ms)", hint: "Mean time of one run, in milliseconds." },
  latency_p95_ms: { label: "Task time, slowest 5% (ms)", hint: "One run in twenty takes longer than this (95th percentile)." },
  memory_mb: { label: "Memory (MB)", hint: "Memory the worker process holds." },
  cpu_pct: { label: "CPU (%)", hint: "Processor use of the worker." },
  config_gen: { label: "Config generation in use", hint: "The config version the worker says it runs." },
  uptime_s: { label: "Running for", hint: "Time since the worker process started." },
};

const HARDWARE: Record<string, KeyLabel> = {
  hostname: { label: "Host name" },
  cpus: { label: "CPUs", hint: "Processor cores." },
  memory: { label: "Memory", hint: "Installed memory." },
  os: { label: "Operating system" },
  runtime: { label: "Runtime", hint: "What the worker runs on (Python, Node.js) and its version." },
  pid: { label: "Process id" },
  started_at: { label: "Started", hint: "When the worker process started." },
  region: { label: "Region" },
  simulated: { label: "Simulated", hint: "A demo worker: it does no real work." },
  python: { label: "Python version" },
  platform: { label: "Platform" },
};

const UNITS: Array<[RegExp, string]> = [
  [/_ms$/, " (ms)"],
  [/_pct$/, " (%)"],
  [/_mb$/, " (MB)"],
  [/_gb$/, " (GB)"],
];

/** `pages_fetched` → "Pages fetched", `latency_ms` → "Latency (ms)": a readable name for an unknown key. */
export function humanizeKey(key: string): string {
  let base = key;
  let unit = "";
  for (const [re, u] of UNITS) {
    if (re.test(base)) {
      base = base.replace(re, "");
      unit = u;
      break;
    }
  }
  const words = base
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[_\-.\s]+/)
    .filter((w) => w !== "");
  if (words.length === 0) return key;
  // Acronyms (CPU, URL) stay as written; other words after the first go lower case.
  const text = words.map((w, i) => (i === 0 ? w.charAt(0).toUpperCase() + w.slice(1) : /^[A-Z0-9]+$/.test(w) && w.length > 1 ? w : w.toLowerCase())).join(" ");
  return `${text}${unit}`;
}

/** A stats frame's key for people: the known ones explained, any other made readable. */
export function statLabel(key: string): KeyLabel {
  return Object.hasOwn(STATS, key) ? STATS[key]! : { label: humanizeKey(key) };
}

/** A hardware key for people. */
export function hardwareLabel(key: string): KeyLabel {
  return Object.hasOwn(HARDWARE, key) ? HARDWARE[key]! : { label: humanizeKey(key) };
}
