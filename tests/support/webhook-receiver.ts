import http from "node:http";
import type { AddressInfo } from "node:net";

/** `raw` is the body exactly as it arrived, for signature checks. */
export type ReceivedWebhook = {
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  raw: string;
  at: number;
};

/** `body` replaces the default answer ("received <category>"); `delayMs` answers that much later. */
export type ReceiverBehaviour =
  { mode: "answer"; status: number; body?: string; delayMs?: number } | { mode: "hang" };

/** A webhook receiver on loopback that records what it is sent and answers as told. */
export async function startWebhookReceiver(
  initial: ReceiverBehaviour = { mode: "answer", status: 200 },
) {
  let behaviour = initial;
  const received: ReceivedWebhook[] = [];
  const waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = { unparsable: text };
      }
      received.push({ headers: req.headers, body, raw: text, at: Date.now() });
      for (const wake of waiters.splice(0)) wake();
      if (behaviour.mode === "answer") {
        const { status, body: answer, delayMs = 0 } = behaviour;
        const reply = () =>
          res
            .writeHead(status, { "content-type": "text/plain" })
            .end(answer ?? `received ${String(body.category)}`);
        if (delayMs > 0) setTimeout(reply, delayMs);
        else reply();
      }
      // "hang": never answer; the sender's timeout ends the attempt.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    setBehaviour: (next: ReceiverBehaviour) => {
      behaviour = next;
    },
    /** Resolves once `count` requests have arrived, or rejects after `timeoutMs`. */
    waitFor: async (count: number, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} webhooks, got ${received.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
