import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedOutMessage } from "@/lib/actions/action-result";
import { ConsoleReadError, readJson, unreachableSentence, withQuery } from "@/lib/client/read-json";

// A console stand-in on loopback: each path answers as one of the console's reads can.
let base = "";
let lastBody = "";
const server = http.createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://localhost");
  const json = (status: number, body: unknown) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  };
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
  request.on("end", () => {
    lastBody = body;
    switch (url.pathname) {
      case "/ok":
        return json(200, { query: Object.fromEntries(url.searchParams), method: request.method });
      case "/refused":
        return json(400, { error: "That filter is not valid." });
      case "/signed-out":
        return json(401, { error: signedOutMessage });
      case "/bare-401":
        response.writeHead(401);
        return response.end();
      case "/crash":
        response.writeHead(500, { "content-type": "text/html" });
        return response.end("<h1>Internal error</h1>");
      case "/to-sign-in":
        response.writeHead(307, { location: "/sign-in-page" });
        return response.end();
      case "/sign-in-page":
        response.writeHead(200, { "content-type": "text/html" });
        return response.end("<form>sign in</form>");
      case "/not-json":
        response.writeHead(200, { "content-type": "application/json" });
        return response.end("{ nope");
      case "/slow":
        return setTimeout(() => json(200, {}), 5_000);
      default:
        return json(404, { error: "No such read." });
    }
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

async function refusal(path: string): Promise<ConsoleReadError> {
  const error = await readJson(`${base}${path}`).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConsoleReadError);
  return error as ConsoleReadError;
}

describe("readJson, the browser's one way to read the console's JSON", () => {
  it("answers the body, with the query's empty values left out", async () => {
    const body = await readJson<{ query: Record<string, string>; method: string }>(`${base}/ok`, {
      query: { after: 0, state: undefined, q: "", limit: 100, exact: true },
    });
    expect(body).toEqual({ query: { after: "0", limit: "100", exact: "true" }, method: "GET" });
  });

  it("sends a body as JSON with POST", async () => {
    const body = await readJson<{ method: string }>(`${base}/ok`, { body: { users: ["a"] } });
    expect(body.method).toBe("POST");
    expect(JSON.parse(lastBody)).toEqual({ users: ["a"] });
  });

  it("turns a refusal into its own sentence, with the status", async () => {
    const error = await refusal("/refused");
    expect([error.message, error.status, error.signedOut]).toEqual([
      "That filter is not valid.",
      400,
      false,
    ]);
  });

  it("says the session ended for a 401, with or without a body, and for a redirect to the sign-in page", async () => {
    for (const path of ["/signed-out", "/bare-401", "/to-sign-in"]) {
      const error = await refusal(path);
      expect([error.message, error.signedOut]).toEqual([signedOutMessage, true]);
    }
  });

  it("names the status when the answer is not the console's JSON", async () => {
    expect((await refusal("/crash")).message).toBe("The console answered HTTP 500.");
    expect((await refusal("/not-json")).message).toBe("The console's answer could not be read.");
  });

  it("says the console could not be reached when nothing answers", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = await readJson(`http://127.0.0.1:${port}/ok`).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ message: unreachableSentence, status: 0 });
  });

  it("lets an abort through as the AbortError it is, for React Query to drop", async () => {
    const controller = new AbortController();
    const read = readJson(`${base}/slow`, { signal: controller.signal });
    controller.abort();
    await expect(read).rejects.toMatchObject({ name: "AbortError" });
  });

  it("keeps an address's own query when it has none to add", () => {
    expect(withQuery("/x", {})).toBe("/x");
    expect(withQuery("/x", { a: "1 2" })).toBe("/x?a=1+2");
  });
});
