import http from "node:http";
import https from "node:https";

/** What the client reads of an answer: a fetch `Response` has it, and so has `httpTransport`'s. */
export type TransportResponse = {
  status: number;
  ok: boolean;
  headers: { get: (name: string) => string | null };
  text: () => Promise<string>;
};

export type TransportInit = {
  method?: string;
  headers?: Record<string, string>;
  body?: string | FormData;
  signal?: AbortSignal;
};

const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

/**
 * The platform client's default transport: node:http over kept-alive connections. The global
 * fetch cost the users import about as much CPU per request as PGlite's work for the row
 * (web streams for each request and answer body, a Request object, its AbortSignal plumbing:
 * measured, see docs/benchmarks.md "Import run"). A multipart body (FormData) still goes through
 * fetch, which writes it. Failures reject as fetch's do (a TypeError whose `cause` is the
 * socket's error), so the client tells a refused connection from a reset the same way; the
 * answer is read whole before it resolves, within the same signal (the client's timeout).
 */
export function httpTransport(input: string, init: TransportInit): Promise<TransportResponse> {
  if (init.body !== undefined && typeof init.body !== "string") return fetch(input, init);
  const url = new URL(input);
  const protocol = url.protocol === "https:" ? "https:" : "http:";
  const body = init.body;
  const headers =
    body === undefined
      ? init.headers
      : { ...init.headers, "content-length": String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(new TypeError("fetch failed", { cause: error }));
    const request = (protocol === "https:" ? https : http).request(
      url,
      { method: init.method, headers, agent: agents[protocol], signal: init.signal },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", failed);
        response.on("end", () => {
          if (!response.complete) return failed(new Error("the answer was cut short"));
          const status = response.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status,
            ok: status >= 200 && status < 300,
            headers: {
              get: (name) => {
                const value = response.headers[name.toLowerCase()];
                return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
              },
            },
            text: () => Promise.resolve(text),
          });
        });
      },
    );
    request.on("error", failed);
    request.end(body);
  });
}
