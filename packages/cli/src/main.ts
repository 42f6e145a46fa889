// The `fleet` process: arguments, environment and streams in, an exit code out.
import { readFile } from "node:fs/promises";
import path from "node:path";

import { run } from "./cli";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

// `pnpm fleet` runs in the repository's root; relative paths mean the directory it was started in.
const cwd = process.env.INIT_CWD ?? process.cwd();

const code = await run({
  argv: process.argv.slice(2),
  env: process.env,
  cwd,
  stdout: (t) => process.stdout.write(`${t}\n`),
  stderr: (t) => process.stderr.write(`${t}\n`),
  readStdin,
  readFile: (p) => readFile(path.resolve(cwd, p), "utf8"),
});
// let stdout drain before the exit (a pipe into jq or head)
process.exitCode = code;
