// The /events page's topic filter.

/** Topic globs as the API takes them: comma-separated, `*` matches any run of characters. */
export function topicMatcher(filter: string): (topic: string) => boolean {
  const globs = filter
    .split(",")
    .map((g) => g.trim())
    .filter(Boolean);
  if (globs.length === 0) return () => true;
  const res = globs.map((g) => {
    const body = g
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    // A filter without a wildcard also matches as a substring: people type "scraper", not "scraper*".
    return new RegExp(g.includes("*") ? `^${body}$` : body, "i");
  });
  return (topic) => res.some((re) => re.test(topic));
}
