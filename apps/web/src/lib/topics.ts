// The /events page's topic filter. The filter comes from the URL (`/events?topics=`), so a
// link can hand anybody any text: it is matched by src/lib/glob.ts (no regular expression
// built from it, bounded work per message) and capped like the server's `topics=`.
import { compileGlob, countStars, matchCompiledGlob, topicCodePoints, type GlobSyntax } from "./glob";

export const MAX_FILTER_GLOBS = 32;
export const MAX_FILTER_GLOB_LENGTH = 200;
export const MAX_FILTER_GLOB_STARS = 16;

// Only `*` is special here; `?` and `\` are literal, and case does not matter.
const PAGE_GLOB: GlobSyntax = { questionMark: false, backslashEscape: false, ignoreCase: true };

export type TopicMatcher = ((topic: string) => boolean) & {
  /** Why (part of) the filter was set aside, for the page to show; null when all of it applies. */
  problem: string | null;
};

/**
 * Topic globs as the API takes them: comma-separated, `*` matches any run of characters.
 * A glob over the caps is ignored (the rest of the filter still applies) and `problem`
 * says so.
 */
export function topicMatcher(filter: string): TopicMatcher {
  const all = filter
    .split(",")
    .map((g) => g.trim())
    .filter(Boolean);
  const problems: string[] = [];
  if (all.length > MAX_FILTER_GLOBS) problems.push(`only the first ${MAX_FILTER_GLOBS} topics apply`);
  const usable = all.slice(0, MAX_FILTER_GLOBS).filter((g) => {
    const ok = g.length <= MAX_FILTER_GLOB_LENGTH && countStars(g, PAGE_GLOB) <= MAX_FILTER_GLOB_STARS;
    if (!ok) problems.push(`“${g.slice(0, 40)}${g.length > 40 ? "…" : ""}” is ignored (at most ${MAX_FILTER_GLOB_LENGTH} characters and ${MAX_FILTER_GLOB_STARS} *)`);
    return ok;
  });
  const problem = problems.length > 0 ? `${problems.join("; ")}.` : null;
  if (usable.length === 0) return Object.assign(() => all.length === 0, { problem });
  // A filter without a wildcard also matches as a substring: people type "scraper", not "scraper*".
  const globs = usable.map((g) => compileGlob(g.includes("*") ? g : `*${g}*`, PAGE_GLOB));
  return Object.assign(
    (topic: string) => {
      const cps = topicCodePoints(topic, true);
      return globs.some((g) => matchCompiledGlob(g, cps));
    },
    { problem },
  );
}
