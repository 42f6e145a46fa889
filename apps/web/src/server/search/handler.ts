// GET /api/v1/queues/{name}/search (issue 14.1): NDJSON, one line per match, progress lines,
// a summary last. Not made by route() (its answer is a stream, not one JSON body), so it
// authorizes itself, like the events stream. Everything that can be refused is refused
// before the stream starts (401/403, 404, 400 for a bad parameter, 422 for a filter that
// does not parse, 503): after that the status is 200 and a failure is a last `error` line.
import { queueNameProblem, type Backend, type QueueDepths } from "@fleet/backend";
import { FilterSyntaxError, parseFilter, SearchQuerySchema, type FilterNode, type SearchLine, type SearchQuery } from "@fleet/schema";

import { authorize } from "../api/authorize";
import { badRequest, notFound, toErrorResponse, validationFailed, zodDetails } from "../api/errors";
import { requireQueue } from "../api/queues";
import { paramsFromUrl } from "../api/route";
import { getBackend } from "../backend";
import { searchQueue } from "./scan";

export const SEARCH_PATH = "/queues/[name]/search";
const WHERE = `GET ${SEARCH_PATH}`;

export interface ParsedSearch {
  query: SearchQuery;
  where: FilterNode | null;
}

/** The query string of a search (or of a bulk action's filter): 400 for a bad parameter, 422 for a filter that does not parse. */
export function parseSearchParams(params: Record<string, unknown>): ParsedSearch {
  const parsed = SearchQuerySchema.safeParse(params);
  if (!parsed.success) {
    const details = zodDetails(parsed.error);
    throw badRequest(`A query parameter is invalid: ${details[0]?.path.replace(/^\//, "") || "the query"} ${details[0]?.message ?? ""}.`.replace(/ \.$/, "."), details);
  }
  const query = parsed.data;
  let where: FilterNode | null = null;
  if (query.where !== undefined && query.where.trim() !== "") {
    try {
      where = parseFilter(query.where);
    } catch (err) {
      if (!(err instanceof FilterSyntaxError)) throw err;
      throw validationFailed(`The filter does not parse ${err.message}.`, [{ path: "/where", message: err.message }]);
    }
  }
  return { query, where };
}

export function queueNameFromUrl(template: string, url: string): string {
  const name = paramsFromUrl(template, url)?.name;
  if (!name) throw badRequest("The path parameter 'name' is missing or empty.");
  const problem = queueNameProblem(name);
  if (problem !== null) throw notFound(`${problem[0]!.toUpperCase()}${problem.slice(1)}.`);
  return name;
}

const NDJSON_HEADERS = {
  "Content-Type": "application/x-ndjson; charset=utf-8",
  "Cache-Control": "no-store, no-transform",
  "X-Accel-Buffering": "no",
} as const;

export async function handleSearch(request: Request): Promise<Response> {
  let backend: Backend;
  let name: string;
  let search: ParsedSearch;
  let depths: QueueDepths;
  try {
    await authorize(request, "viewer");
    name = queueNameFromUrl(SEARCH_PATH, request.url);
    search = parseSearchParams(Object.fromEntries(new URL(request.url).searchParams));
    backend = await getBackend();
    depths = (await backend.queueDepths([name]))[0]!;
    await requireQueue(backend, name, depths);
  } catch (err) {
    return toErrorResponse(err, WHERE);
  }
  const lines = searchQueue(backend, name, {
    q: search.query.q || undefined,
    where: search.where,
    lists: search.query.in,
    limit: search.query.limit,
    depths,
  });
  const encoder = new TextEncoder();
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    // ends the generator where it waits: the next chunk is never asked for
    void lines.return(undefined).catch(() => undefined);
  };
  request.signal?.addEventListener("abort", finish, { once: true });
  const stream = new ReadableStream<Uint8Array>({
    // Pull-driven: the scan reads the next chunk only when the client has taken what was sent.
    async pull(controller) {
      if (finished) return;
      let text = "";
      try {
        // a few lines per pull, so a burst of matches goes out in one write
        for (let i = 0; i < 64; i++) {
          const step = await lines.next();
          if (step.done) {
            finished = true;
            break;
          }
          text += `${JSON.stringify(step.value satisfies SearchLine)}\n`;
          if (step.value.type !== "match") break;
        }
      } catch (err) {
        finished = true;
        const res = toErrorResponse(err, WHERE);
        const envelope = (await res.json()) as { error: { code: string; message: string } };
        text += `${JSON.stringify({ type: "error", error: { code: envelope.error.code, message: envelope.error.message } } satisfies SearchLine)}\n`;
      }
      if (text) controller.enqueue(encoder.encode(text));
      if (finished) {
        request.signal?.removeEventListener("abort", finish);
        controller.close();
      }
    },
    cancel() {
      finish();
    },
  });
  return new Response(stream, { status: 200, headers: NDJSON_HEADERS });
}
