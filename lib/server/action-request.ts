import type { Refusal } from "@/lib/schemas/request-target";

/**
 * Checks a POST that Next.js would decode as a server action call before Next.js sees it: Next.js
 * answers a body it cannot decode (not JSON, empty, over 1,000 arguments, broken multipart, a
 * reference to a part the body does not have) with a 500 and a stack trace in the log. proxy.ts
 * answers these with a 4xx instead; anything this lets through decodes.
 *
 * Every console action is called by React's client with JSON values, which it sends as a JSON
 * array of arguments (`text/plain`). A multipart body is what React sends for files, Maps, Sets
 * and the like, or a form posted without JavaScript; no console action takes either, so such a
 * body is refused whole rather than half-parsed.
 */
export function refuseServerActionRequest(
  request: { contentType: string; isActionCall: boolean; body: Uint8Array },
  maxBytes: number,
): Refusal | undefined {
  if (request.contentType.toLowerCase().startsWith("multipart/form-data")) {
    return {
      status: 415,
      message: "The console's actions take JSON arguments; a multipart form is not accepted.",
    };
  }
  if (!request.isActionCall) return undefined;
  if (request.body.byteLength > maxBytes) {
    return {
      status: 413,
      message: `The request body is larger than ${maxBytes / 1024 / 1024} MB.`,
    };
  }
  let text: string;
  try {
    text = utf8.decode(request.body);
  } catch {
    return { status: 400, message: "The request body is not valid UTF-8." };
  }
  if (text.trim() === "") {
    return {
      status: 400,
      message: "The request body is empty: an action takes its arguments as JSON.",
    };
  }
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch {
    return { status: 400, message: "The request body is not valid JSON." };
  }
  if (!Array.isArray(args)) {
    return { status: 400, message: "The request body must be a JSON array of arguments." };
  }
  if (args.length > maxArguments) {
    return {
      status: 400,
      message: `An action takes at most ${maxArguments.toLocaleString("en")} arguments; this request sent ${args.length.toLocaleString("en")}.`,
    };
  }
  const reference = findUnresolvable(args, args);
  if (reference !== undefined) {
    return {
      status: 400,
      message: `The request body refers to a part it does not have: ${JSON.stringify(reference.slice(0, 40))}.`,
    };
  }
  return undefined;
}

/** Next.js refuses more (with a 500). */
const maxArguments = 1000;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * In React's reply format a string beginning with `$` is not text: `$$…` is text beginning with
 * `$`; these stand for a value inline (undefined, NaN, ±Infinity, -0, a date, a BigInt); `$0` and
 * `$0:key:…` point into the arguments themselves (an object passed twice). Anything else points to
 * another part of a multipart body, which a JSON body does not have: React then fails.
 */
const inlineValue = /^\$(?:\$|undefined$|NaN$|Infinity$|-Infinity$|-0$|D|n-?\d{1,300}$)/;

/** The first `$` string in `value` that React could not resolve from `root` alone. */
function findUnresolvable(value: unknown, root: unknown[], depth = 0): string | undefined {
  if (typeof value === "string") {
    if (!value.startsWith("$") || inlineValue.test(value)) return undefined;
    return pointsIntoRoot(value, root) ? undefined : value;
  }
  if (value === null || typeof value !== "object" || depth > 256) return undefined;
  for (const item of Object.values(value)) {
    const found = findUnresolvable(item, root, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `$0` or `$0:key:…` naming an object or array of the arguments, as React reads it. */
function pointsIntoRoot(reference: string, root: unknown[]): boolean {
  const [id, ...path] = reference.slice(1).split(":");
  if (id === undefined || !/^0+$/.test(id)) return false;
  let target: unknown = root;
  for (const key of path) {
    if (target === null || typeof target !== "object" || !Object.hasOwn(target, key)) return false;
    target = (target as Record<string, unknown>)[key];
  }
  return target !== null && typeof target === "object";
}

/** `experimental.serverActions.bodySizeLimit` in next.config.js ("2mb"); keep the two in step. */
export const serverActionBodyLimitBytes = 2 * 1024 * 1024;
