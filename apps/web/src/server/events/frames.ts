// Server-Sent Events wire format and the `topics=` filter of GET /api/v1/events.
import { decodeUtf8, parseJsonBytes } from "@fleet/backend";
import type { LiveEventName } from "@fleet/schema";

import { jsonForBrowser } from "../api/serialize";
import { compileGlob, countStars, matchCompiledGlob, REDIS_GLOB, topicCodePoints } from "@/lib/glob";

const encoder = new TextEncoder();

/**
 * One frame. JSON.stringify never emits a raw line break, so `data:` is always a single
 * line and the frame cannot be split by the client's line parser.
 */
export function encodeFrame(id: number | string, event: LiveEventName, data: unknown): Uint8Array {
  return encoder.encode(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** A comment line: keeps proxies and the browser from timing the connection out. */
export function encodeComment(text: string): Uint8Array {
  return encoder.encode(`: ${text.replace(/[\r\n]+/g, " ")}\n\n`);
}

/**
 * A bus payload as the frame carries it: the parsed JSON when the bytes are JSON, else the
 * text. Bytes that are not UTF-8 are decoded lossily (U+FFFD): the frame promises "JSON or
 * string" and a subscriber that needs exact bytes should read Redis itself.
 */
export function busPayload(payload: Buffer): unknown {
  const parsed = parseJsonBytes(payload);
  if (parsed.ok) return jsonForBrowser(parsed.value);
  return decodeUtf8(payload) ?? payload.toString("utf8");
}

export const MAX_TOPIC_PATTERNS = 32;
export const MAX_TOPIC_PATTERN_LENGTH = 200;
export const MAX_TOPIC_PATTERN_STARS = 16;

export type TopicFilter = (topic: string) => boolean;

/**
 * Parses `topics=a,b.*` into a predicate. Globs as Redis PSUBSCRIBE reads them: `*` any
 * run of characters (dots included), `?` one character, `\` escapes the next one. An
 * absent or empty parameter lets every topic through. Throws RangeError on abuse.
 * Matching never builds a regular expression from the parameter (src/lib/glob.ts): its
 * cost per message is bounded by the topic's length times the patterns' total length.
 */
export function parseTopicFilter(param: string | null): TopicFilter {
  const patterns = (param ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (patterns.length === 0) return () => true;
  if (patterns.length > MAX_TOPIC_PATTERNS) {
    throw new RangeError(`topics takes at most ${MAX_TOPIC_PATTERNS} patterns, got ${patterns.length}`);
  }
  const globs = patterns.map((p) => {
    if (p.length > MAX_TOPIC_PATTERN_LENGTH) {
      throw new RangeError(`a topics pattern may be at most ${MAX_TOPIC_PATTERN_LENGTH} characters long`);
    }
    if (countStars(p, REDIS_GLOB) > MAX_TOPIC_PATTERN_STARS) {
      throw new RangeError(`a topics pattern may hold at most ${MAX_TOPIC_PATTERN_STARS} '*'`);
    }
    return compileGlob(p, REDIS_GLOB);
  });
  return (topic) => {
    const cps = topicCodePoints(topic, false);
    return globs.some((g) => matchCompiledGlob(g, cps));
  };
}
