// Options several commands share.
import type { OptionSpec } from "../command";

export const PAGE_OPTIONS: Record<string, OptionSpec> = {
  limit: { type: "string", value: "N", description: "at most N items (0-1000; default 100, 1000 per page with --all)" },
  offset: { type: "string", value: "N", description: "skip the first N items" },
  all: { type: "boolean", description: "every item: read page after page" },
};

/** A 40-hex dead-letter ref (SHA-1 of its raw bytes). */
export const REF_PATTERN = /^[0-9a-f]{40}$/;
