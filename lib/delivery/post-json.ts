import http from "node:http";
import https from "node:https";
import net from "node:net";
import { urlToHttpOptions } from "node:url";
import { createHmac } from "node:crypto";
import { guardedLookup, REFUSED_CODE, refusalReason, type AddressPolicy } from "./address-guard";

export type AttemptOutcome = {
  /** HTTP status of the response; null when none arrived. */
  status: number | null;
  /** Why no response arrived (timeout, refused, reset...). */
  error: string | null;
  /** The address guard refused the destination: final, never retried. */
  refused: boolean;
  latencyMs: number;
  /** The headers sent with the request. */
  requestHeaders: Record<string, string>;
  /** The response's headers, when one arrived. */
  responseHeaders: Record<string, string> | null;
  /** The first 2 KiB of the response body. */
  responseExcerpt: string | null;
};

/** The header the platform signs its webhooks with (sandbox contract, "Webhook deliveries, further"). */
export const SIGNATURE_HEADER = "x-sendbird-signature";

/** The hex HMAC-SHA256 of the raw body, keyed with the application's API token. */
export function signBody(body: string, apiToken: string): string {
  return createHmac("sha256", apiToken).update(body, "utf8").digest("hex");
}

export const RESPONSE_EXCERPT_BYTES = 2048;

const agents = new Map<string, http.Agent>();

/** Keep-alive agents per protocol and policy, as the interface asks receivers to support. */
function agentFor(protocol: "http:" | "https:", policy: AddressPolicy): http.Agent {
  const key = `${protocol}${policy.allowLoopback}${policy.allowPrivate}`;
  let agent = agents.get(key);
  if (!agent) {
    // 128 sockets per host: the webhook worker's bound on requests in flight per endpoint.
    const options = { keepAlive: true, maxSockets: 128, lookup: guardedLookup(policy) };
    agent = protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/**
 * One delivery attempt: POST a JSON body, wait at most `timeoutMs` for the response head,
 * follow no redirect, keep the first 2 KiB of the answer. Never throws.
 */
export function postJson(
  url: string,
  body: string,
  options: {
    timeoutMs: number;
    policy: AddressPolicy;
    headers?: Record<string, string>;
    signingKey?: string;
  },
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const requestHeaders: Record<string, string> = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    "user-agent": "Switchboard-Webhooks/1.0",
    ...(options.signingKey ? { [SIGNATURE_HEADER]: signBody(body, options.signingKey) } : {}),
    ...options.headers,
  };
  const failed = (error: string, refused = false): AttemptOutcome => ({
    status: null,
    error,
    refused,
    latencyMs: elapsed(),
    requestHeaders,
    responseHeaders: null,
    responseExcerpt: null,
  });

  const target = targetOf(url, options.policy);
  if ("failure" in target) return Promise.resolve(failed(target.failure, target.refused));

  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = target.transport.request(
      { ...target.request, headers: requestHeaders },
      (response) => {
        const status = response.statusCode ?? 0;
        const latencyMs = elapsed();
        // The response counts from its head on; a body that trickles is cut short.
        clearTimeout(timer);
        const bodyTimer = setTimeout(() => response.destroy(), 1000);
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on("data", (chunk: Buffer) => {
          if (kept < RESPONSE_EXCERPT_BYTES) {
            chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept));
            kept += Math.min(chunk.length, RESPONSE_EXCERPT_BYTES - kept);
          } else {
            // Enough to show; the rest is not worth reading.
            response.destroy();
          }
        });
        const done = () => {
          clearTimeout(bodyTimer);
          finish({
            status,
            error: null,
            refused: false,
            latencyMs,
            requestHeaders,
            responseHeaders: flatHeaders(response.headers),
            responseExcerpt: storableExcerpt(Buffer.concat(chunks)),
          });
        };
        response.on("end", done);
        response.on("close", done);
        response.on("error", done);
      },
    );
    // When the timer fires late because the event loop was busy, a response may be waiting to be
    // read: let pending I/O run first (setImmediate comes after the poll phase), then decide.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          request.destroy();
          finish(failed(`No response within ${options.timeoutMs} ms.`));
        }),
      options.timeoutMs,
    );
    request.on("error", (error: NodeJS.ErrnoException) =>
      finish(failed(describe(error), error.code === REFUSED_CODE)),
    );
    request.end(body);
  });
}

type Target =
  | { transport: typeof http | typeof https; request: http.RequestOptions }
  | { failure: string; refused: boolean };

/** Parsed targets by URL and policy: a worker posts to few URLs, many times each. */
const targets = new Map<string, Target>();
const MAX_TARGETS = 1_000;

/** Where a POST to `url` goes, or why it goes nowhere; worked out once per URL and policy. */
function targetOf(url: string, policy: AddressPolicy): Target {
  const key = `${policy.allowLoopback}${policy.allowPrivate}${url}`;
  let target = targets.get(key);
  if (!target) {
    target = parseTarget(url, policy);
    if (targets.size >= MAX_TARGETS) targets.clear();
    targets.set(key, target);
  }
  return target;
}

function parseTarget(url: string, policy: AddressPolicy): Target {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { failure: "The URL is not valid.", refused: false };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return { failure: "Only http and https URLs are delivered to.", refused: false };
  }
  // An IP literal skips DNS, so the guard checks it here.
  const literal = parsed.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(literal)) {
    const reason = refusalReason(literal, policy);
    if (reason) return { failure: `Refused to connect: ${reason}.`, refused: true };
  }
  return {
    transport: parsed.protocol === "https:" ? https : http,
    request: {
      ...urlToHttpOptions(parsed),
      method: "POST",
      agent: agentFor(parsed.protocol, policy),
    },
  };
}

/**
 * The excerpt as text the database can store: PostgreSQL refuses NUL in text and jsonb, and
 * one answer holding it would fail the record of its whole batch of attempts.
 */
function storableExcerpt(bytes: Buffer): string {
  return bytes.toString("utf8").replaceAll("\u0000", "\uFFFD");
}

function describe(error: NodeJS.ErrnoException): string {
  if (error.code === "ECONNREFUSED") return "Connection refused.";
  if (error.code === "ECONNRESET") return "Connection reset before a response.";
  if (error.code === "ENOTFOUND" || error.code === "EAI_AGAIN") return "Host not found.";
  if (error.code === REFUSED_CODE) return error.message;
  return error.message || "The request failed.";
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}
