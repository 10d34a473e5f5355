/**
 * The one way the browser reads the console's own JSON (route handlers behind `adminRoute`):
 * every page's queries go through it, so a signed-out session, an abort, an unreachable
 * console and a refusal are each handled once, the same way everywhere.
 */

import { signedOutMessage } from "@/lib/actions/action-result";

export const unreachableSentence =
  "The console could not be reached. Check the connection and try again.";

type Query = Record<string, string | number | boolean | undefined>;

export type ReadOptions = {
  /** Added to the address; undefined and empty values are left out. */
  query?: Query;
  /** React Query's signal: an aborted read rejects with the AbortError as it is, never as a message. */
  signal?: AbortSignal;
  /** A JSON body, sent with POST (reads that need more than an address holds). */
  body?: unknown;
};

/** A refusal of the console, with the sentence to show and the HTTP status behind it. */
export class ConsoleReadError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "ConsoleReadError";
  }

  get signedOut(): boolean {
    return this.status === 401;
  }
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== "") params.set(key, String(value));
  return params.size > 0 ? `${path}?${params}` : path;
}

export async function readJson<T>(path: string, options: ReadOptions = {}): Promise<T> {
  const init: RequestInit = { cache: "no-store", signal: options.signal };
  if (options.body !== undefined) {
    init.method = "POST";
    init.headers = { "content-type": "application/json" };
    init.body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), init);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ConsoleReadError(unreachableSentence, 0);
  }
  // A redirect to the sign-in page (what a page load gets once signed out) arrives as HTML.
  const isJson = (response.headers.get("content-type") ?? "").includes("application/json");
  if (!isJson && response.redirected) throw new ConsoleReadError(signedOutMessage, 401);
  const body = isJson ? ((await response.json().catch(() => null)) as unknown) : null;
  if (!response.ok) {
    const refusal =
      body && typeof body === "object" && "error" in body && typeof body.error === "string"
        ? body.error
        : response.status === 401
          ? signedOutMessage
          : `The console answered HTTP ${response.status}.`;
    throw new ConsoleReadError(refusal, response.status);
  }
  if (body === null)
    throw new ConsoleReadError("The console's answer could not be read.", response.status);
  return body as T;
}
