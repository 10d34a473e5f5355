import http from "node:http";
import { inject } from "vitest";

export type Answer = { status: number; headers: http.IncomingHttpHeaders; text: string };

/**
 * One HTTP request to the test console from a chosen loopback source address (127.0.0.2, ...),
 * which the sign-in throttle counts apart from the tests' own sign-ins (127.0.0.1).
 */
export function request(
  target: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    from?: string;
  } = {},
): Promise<Answer> {
  const { port } = new URL(inject("console").origin);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: Number(port),
        path: target,
        method: options.method ?? "GET",
        headers: options.headers,
        localAddress: options.from,
        agent: false,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}
