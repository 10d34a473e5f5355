import { isStorableText } from "./text-values";

/** Longest request target (path and query) served; longer ones get 414 (sandbox contract). */
export const maxRequestTargetBytes = 8 * 1024;

export type Refusal = { status: number; message: string };

/** Printable ASCII without percent-encoding: decodes to itself, which is always storable. */
const plainTarget = /^[!-$&-~]*$/;

/** Why a request target cannot be served, or undefined when it can. */
export function refuseRequestTarget(target: string): Refusal | undefined {
  // Nearly every request: nothing to decode (checked on every request, twice on the Node path).
  if (target.length <= maxRequestTargetBytes && plainTarget.test(target)) return undefined;
  if (new TextEncoder().encode(target).length > maxRequestTargetBytes) {
    return {
      status: 414,
      message: `The request URL is longer than ${maxRequestTargetBytes / 1024} KB.`,
    };
  }
  const queryStart = target.indexOf("?");
  const pathname = queryStart === -1 ? target : target.slice(0, queryStart);
  const query = queryStart === -1 ? "" : target.slice(queryStart + 1);
  const parts = [
    ...pathname.split("/"),
    ...query.split(/[&=]/).map((part) => part.replaceAll("+", " ")),
  ];
  for (const part of parts) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      return {
        status: 400,
        message: "The request URL holds percent-encoding that does not decode as UTF-8.",
      };
    }
    if (!isStorableText(decoded)) {
      return {
        status: 400,
        message: "The request URL holds a NUL character or an unpaired surrogate.",
      };
    }
  }
  return undefined;
}

/** A host name or address with an optional port that needs no parsing (nearly every request). */
const plainHost = /^[a-z0-9._-]+(?::\d{1,5})?$/;

/**
 * Why a request's Host header cannot be served, or undefined when it can: missing (or empty) in
 * an HTTP/1.1 request, which must send one, or not a host with an optional port (`a b`,
 * `user@host`, `host/path`), which no URL of this server can be built from.
 */
export function refuseHost(host: string | undefined, httpVersion: string): Refusal | undefined {
  if (host === undefined || host === "") {
    return httpVersion === "1.0"
      ? undefined
      : { status: 400, message: "The request has no Host header." };
  }
  if (plainHost.test(host)) return undefined;
  let hostname: string | undefined;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    hostname = undefined;
  }
  return hostname === host.replace(/:\d*$/, "").toLowerCase()
    ? undefined
    : { status: 400, message: "The Host header is not a host name with an optional port." };
}
