#!/usr/bin/env node
// `fleet`: the CLI's TypeScript source run through tsx, as the worker's CLIs are.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
