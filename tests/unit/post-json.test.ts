import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  postJson,
  RESPONSE_EXCERPT_BYTES,
  SIGNATURE_HEADER,
  signBody,
} from "@/lib/delivery/post-json";

const policy = { allowLoopback: true, allowPrivate: false };

type Seen = { url: string; headers: http.IncomingHttpHeaders; body: string };

/** A receiver whose every path behaves in its own way, recording what it was sent. */
let server: http.Server;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body });
      switch (req.url) {
        case "/ok":
          res.writeHead(200, { "x-receiver": "yes" }).end("thanks");
          return;
        case "/error":
          res.writeHead(500).end("broken");
          return;
        case "/redirect":
          res.writeHead(302, { location: "/ok" }).end();
          return;
        case "/large":
          res.writeHead(200).end("x".repeat(10 * RESPONSE_EXCERPT_BYTES));
          return;
        case "/slow-body":
          // The head at once, the body never finished.
          res.writeHead(200);
          res.write("partial");
          return;
        case "/reset":
          req.socket.destroy();
          return;
        case "/hang":
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const last = () => seen[seen.length - 1]!;

describe("postJson", () => {
  it("posts the body, signed, and keeps the answer's status, headers and text", async () => {
    const body = JSON.stringify({ category: "direct_call:dial" });
    const outcome = await postJson(`${base}/ok`, body, {
      timeoutMs: 5000,
      policy,
      signingKey: "token-1",
    });
    expect(outcome).toMatchObject({
      status: 200,
      error: null,
      refused: false,
      responseExcerpt: "thanks",
    });
    expect(outcome.responseHeaders).toMatchObject({ "x-receiver": "yes" });
    expect(last().body).toBe(body);
    expect(last().headers[SIGNATURE_HEADER]).toBe(signBody(body, "token-1"));
    expect(last().headers["content-type"]).toBe("application/json");
    expect(outcome.requestHeaders[SIGNATURE_HEADER]).toBe(signBody(body, "token-1"));
  });

  it("reports an error status as an answer", async () => {
    const outcome = await postJson(`${base}/error`, "{}", { timeoutMs: 5000, policy });
    expect(outcome).toMatchObject({ status: 500, error: null, responseExcerpt: "broken" });
  });

  it("does not follow a redirect", async () => {
    const before = seen.length;
    const outcome = await postJson(`${base}/redirect`, "{}", { timeoutMs: 5000, policy });
    expect(outcome.status).toBe(302);
    expect(seen.length).toBe(before + 1);
  });

  it("keeps only the first 2 KiB of a long answer", async () => {
    const outcome = await postJson(`${base}/large`, "{}", { timeoutMs: 5000, policy });
    expect(outcome.status).toBe(200);
    expect(outcome.responseExcerpt).toHaveLength(RESPONSE_EXCERPT_BYTES);
  });

  it("counts an answer from its head: a body that never ends is cut short, not a timeout", async () => {
    const outcome = await postJson(`${base}/slow-body`, "{}", { timeoutMs: 300, policy });
    expect(outcome).toMatchObject({ status: 200, error: null, responseExcerpt: "partial" });
  });

  it("gives up on a receiver that never answers", async () => {
    const outcome = await postJson(`${base}/hang`, "{}", { timeoutMs: 300, policy });
    expect(outcome).toMatchObject({
      status: null,
      error: "No response within 300 ms.",
      refused: false,
    });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(300);
  });

  it("says in plain words when the connection is reset or refused", async () => {
    const reset = await postJson(`${base}/reset`, "{}", { timeoutMs: 5000, policy });
    expect(reset).toMatchObject({ status: null, error: "Connection reset before a response." });

    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await postJson(`http://127.0.0.1:${port}/`, "{}", { timeoutMs: 5000, policy });
    expect(refused).toMatchObject({ status: null, error: "Connection refused.", refused: false });
  });

  it("sends a URL's credentials as Basic authorization without showing them in the log", async () => {
    const url = `${base.replace("://", "://hook%20user:s3cret@")}/ok`;
    const outcome = await postJson(url, "{}", { timeoutMs: 5000, policy });
    expect(outcome.status).toBe(200);
    expect(last().headers.authorization).toBe(
      `Basic ${Buffer.from("hook user:s3cret").toString("base64")}`,
    );
    expect(JSON.stringify(outcome.requestHeaders)).not.toContain("s3cret");
    expect(outcome.requestHeaders.authorization).toBeUndefined();
  });

  it("reuses its connections across posts", async () => {
    const ports = new Set<number>();
    const watch = (socket: import("node:net").Socket) => ports.add(socket.remotePort ?? 0);
    server.on("connection", watch);
    for (let i = 0; i < 5; i += 1) {
      await postJson(`${base}/ok`, "{}", { timeoutMs: 5000, policy });
    }
    server.off("connection", watch);
    expect(ports.size).toBeLessThanOrEqual(1);
  });
});
