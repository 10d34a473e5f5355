import http from "node:http";
import type { Socket } from "node:net";
import ipaddr from "ipaddr.js";
import { clientAddressHeader } from "@/lib/auth/request-info";
import { env } from "@/lib/env";
import {
  maxRequestTargetBytes,
  refuseHost,
  refuseRequestTarget,
  type Refusal,
} from "@/lib/schemas/request-target";

type AddressRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseAddress(text: string | undefined): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!text) return undefined;
  const bare = text.trim().replace(/^\[(.*)\]$/, "$1");
  try {
    return ipaddr.process(bare); // IPv4-mapped IPv6 (::ffff:a.b.c.d) becomes IPv4
  } catch {
    return undefined;
  }
}

function isTrusted(address: ipaddr.IPv4 | ipaddr.IPv6, ranges: AddressRange[]): boolean {
  return ranges.some(
    ([range, bits]) => range.kind() === address.kind() && address.match(range, bits),
  );
}

/**
 * The client's address: the socket's peer, unless that peer is a trusted proxy; then the
 * X-Forwarded-For entries are read from the right (the nearest hop) and the first one that is
 * not a trusted proxy is the client. Entries further left were written by the client itself.
 */
export function resolveClientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustedProxies: AddressRange[],
): string {
  // The same peer asks again and again over a kept-alive connection; parsing its address
  // each time was a visible share of a small request's cost.
  let known = resolved.get(trustedProxies);
  if (!known) resolved.set(trustedProxies, (known = new Map()));
  const key = `${socketAddress ?? ""}|${forwardedFor ?? ""}`;
  let client = known.get(key);
  if (client === undefined) {
    if (known.size >= maxResolved) known.clear();
    client = resolveUncached(socketAddress, forwardedFor, trustedProxies);
    known.set(key, client);
  }
  return client;
}

/** Recent answers of resolveClientAddress, per list of trusted proxies. */
const resolved = new WeakMap<AddressRange[], Map<string, string>>();
const maxResolved = 10_000;

function resolveUncached(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustedProxies: AddressRange[],
): string {
  let client = parseAddress(socketAddress);
  if (!client) return "unknown";
  const hops = (forwardedFor ?? "").split(",").reverse();
  for (const hop of hops) {
    if (!isTrusted(client, trustedProxies)) break;
    const next = parseAddress(hop);
    if (!next) break; // a trusted proxy passed on garbage: the proxy is the best we know
    client = next;
  }
  return client.toString();
}

function refusalBody(message: string): string {
  return JSON.stringify({ message, code: 400111, error: true });
}

function refuse(response: http.ServerResponse, refusal: Refusal): void {
  const body = refusalBody(refusal.message);
  response.writeHead(refusal.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    connection: "close",
  });
  response.end(body);
}

/**
 * Node answers a request it cannot parse (headers over 16 KB, a malformed request line) with a
 * bare status line. This answers in the JSON error shape instead: 414 when the request line
 * alone is too long, 431 for other oversized headers, 400 otherwise.
 */
function answerClientError(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Socket,
): void {
  if (!socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  let status = 400;
  let message = "The request could not be parsed.";
  if (error.code === "HPE_HEADER_OVERFLOW") {
    const firstLineEnd = error.rawPacket?.indexOf("\r\n") ?? -1;
    const requestLineTooLong = firstLineEnd === -1 || firstLineEnd > maxRequestTargetBytes;
    status = requestLineTooLong ? 414 : 431;
    message = requestLineTooLong
      ? `The request URL is longer than ${maxRequestTargetBytes / 1024} KB.`
      : "The request headers are too large.";
  }
  const body = refusalBody(message);
  const reason = http.STATUS_CODES[status] ?? "Bad Request";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

const guarded = Symbol.for("switchboard.request-guard");
type GuardedPrototype = typeof http.Server.prototype & { [guarded]?: true };

/**
 * Puts the guard in front of every Node HTTP server of this process (`next start`, a custom
 * server, `npm run sandbox`) by wrapping http.Server's event dispatch: Next.js does not hand its
 * server to application code, and the guard must run before Next.js decodes the URL. Installed
 * once; servers created before or after are covered alike.
 */
export function installRequestGuard(): void {
  const prototype = http.Server.prototype as GuardedPrototype;
  if (prototype[guarded]) return;
  prototype[guarded] = true;
  const trustedProxies = env().TRUSTED_PROXIES;
  const emit = prototype.emit;
  prototype.emit = function guardedEmit(
    this: http.Server,
    event: string | symbol,
    ...args: unknown[]
  ) {
    if (event === "request") {
      const [request, response] = args as [http.IncomingMessage, http.ServerResponse];
      const refusal =
        refuseRequestTarget(request.url ?? "/") ??
        refuseHost(request.headers.host, request.httpVersion);
      if (refusal) {
        refuse(response, refusal);
        return true;
      }
      const forwardedFor = request.headers["x-forwarded-for"];
      request.headers[clientAddressHeader] = resolveClientAddress(
        request.socket.remoteAddress,
        Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor,
        trustedProxies,
      );
    } else if (event === "connection") {
      // Node answers an HTTP/1.1 request without Host with a bare 400 before any "request"
      // event; refuseHost answers it in the JSON error shape instead.
      (this as http.Server & { requireHostHeader?: boolean }).requireHostHeader = false;
    } else if (event === "clientError" && this.listenerCount("clientError") === 0) {
      answerClientError(args[0] as NodeJS.ErrnoException, args[1] as Socket);
      return true;
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof prototype.emit;
}
