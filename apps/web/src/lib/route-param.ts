/**
 * A dynamic segment of a page URL as the name it stands for. Next hands page params over
 * still percent-encoded; names may hold `%`, `:`, `/` and any UTF-8, so decode exactly once
 * and keep the raw segment if it is not valid percent-encoding.
 */
export function routeParam(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
