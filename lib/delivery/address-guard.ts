import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";

export type AddressPolicy = {
  /**
   * 127.0.0.0/8 and ::1, and 0.0.0.0/8 and ::, which reach this machine too: administrators
   * test against local receivers.
   */
  allowLoopback: boolean;
  /** Private, link-local, metadata and other non-public ranges. */
  allowPrivate: boolean;
};

/** The error code a guarded lookup fails with, so callers can tell a refusal from a network error. */
export const REFUSED_CODE = "EADDRREFUSED";

/**
 * The IPv4 address an IPv6 address carries, for every form that embeds one: mapped
 * (::ffff:a.b.c.d), compatible (::a.b.c.d), SIIT (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96 and
 * the local-use 64:ff9b:1::/48), 6to4 (2002:AABB:CCDD::/48) and Teredo (the client address,
 * stored inverted in the last 32 bits). Such an address reaches the IPv4 host, so it is
 * judged as that host.
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const fromWords = (high: number, low: number) =>
    new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  switch (address.range()) {
    case "ipv4Mapped":
    case "rfc6145":
    case "rfc6052":
      return fromWords(parts[6]!, parts[7]!);
    case "6to4":
      return fromWords(parts[1]!, parts[2]!);
    case "teredo":
      return fromWords(parts[6]! ^ 0xffff, parts[7]! ^ 0xffff);
  }
  // IPv4-compatible (deprecated, ::/96 apart from :: and ::1).
  if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1)) {
    return fromWords(parts[6]!, parts[7]!);
  }
  return null;
}

/** Why an address may not be connected to, or null when it may. */
export function refusalReason(address: string, policy: AddressPolicy): string | null {
  if (net.isIP(address) === 0) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  const inner = parsed.kind() === "ipv6" ? embeddedIPv4(parsed as ipaddr.IPv6) : null;
  if (inner) parsed = inner;
  const shown = inner ? `${address} (${inner.toString()})` : address;
  // Only the ranges ipaddr.js calls global unicast are public; everything it names otherwise
  // (private, link-local with the metadata service, carrier-grade NAT, multicast, reserved,
  // unique-local...) is not.
  const range = parsed.range();
  if (range === "unicast") return null;
  if (range === "loopback") return policy.allowLoopback ? null : `${shown} is a loopback address`;
  // 0.0.0.0/8 and :: name no other host: a connection to them reaches this machine, so they
  // are loopback, whatever the policy says of private ranges.
  if (range === "unspecified")
    return policy.allowLoopback ? null : `${shown} is this machine, like a loopback address`;
  return policy.allowPrivate
    ? null
    : `${shown} is a private, link-local or reserved address (${range})`;
}

/** A refusal error, marked so a delivery records it as final. */
export function refusedError(reason: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`Refused to connect: ${reason}.`), { code: REFUSED_CODE });
}

/**
 * A `lookup` for http.request that resolves as usual and then refuses forbidden addresses,
 * so the check holds at connect time, whatever a DNS name resolved to a moment earlier.
 */
export function guardedLookup(policy: AddressPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as Array<{ address: string; family: number }>;
      const allowed = list.filter((entry) => refusalReason(entry.address, policy) === null);
      if (allowed.length === 0) {
        const reason = list[0]
          ? refusalReason(list[0].address, policy)
          : `${hostname} has no address`;
        return callback(refusedError(reason ?? hostname), "", 0);
      }
      if ((options as { all?: boolean }).all) {
        return (callback as unknown as (e: null, a: typeof allowed) => void)(null, allowed);
      }
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

/**
 * What the guard would say about a URL's host, resolved now (for a warning before saving:
 * the delivery itself checks again at connect time). Null when the host is public or cannot
 * be resolved.
 */
export async function hostWarning(url: string, policy: AddressPolicy): Promise<string | null> {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return null;
  }
  if (net.isIP(host) !== 0) return refusalReason(host, policy);
  try {
    const addresses = await dns.promises.lookup(host, { all: true });
    for (const { address } of addresses) {
      const reason = refusalReason(address, policy);
      if (reason) return `${host} resolves to ${reason.replace(" is ", ", which is ")}`;
    }
  } catch {
    return null;
  }
  return null;
}
