import dns from "node:dns";
import net from "node:net";

export type AddressPolicy = {
  /** 127.0.0.0/8 and ::1: administrators test against local receivers. */
  allowLoopback: boolean;
  /** Private, link-local, metadata and other non-public ranges. */
  allowPrivate: boolean;
};

const loopback = new net.BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

// Addresses a webhook must never reach unless explicitly allowed: private networks,
// link-local (which holds the cloud metadata service, 169.254.169.254 and fd00:ec2::254),
// carrier-grade NAT, benchmarking, multicast, reserved and unspecified.
const nonPublic = new net.BlockList();
for (const [address, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  nonPublic.addSubnet(address, prefix, "ipv4");
}
for (const [address, prefix] of [
  ["::", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  ["64:ff9b::", 96],
] as const) {
  nonPublic.addSubnet(address, prefix, "ipv6");
}

/** Why an address may not be connected to, or null when it may. */
export function refusalReason(address: string, policy: AddressPolicy): string | null {
  const family = net.isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return refusalReason(mapped, policy);
  const type = family === 4 ? "ipv4" : "ipv6";
  if (loopback.check(address, type)) return policy.allowLoopback ? null : `${address} is a loopback address`;
  if (nonPublic.check(address, type)) {
    return policy.allowPrivate ? null : `${address} is a private, link-local or reserved address`;
  }
  return null;
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
          const reason = list[0] ? refusalReason(list[0].address, policy) : `${hostname} has no address`;
          const refused = Object.assign(new Error(`Refused to connect: ${reason}.`), { code: "EADDRREFUSED" });
          return callback(refused, "", 0);
        }
        if ((options as { all?: boolean }).all) {
          return (callback as unknown as (e: null, a: typeof allowed) => void)(null, allowed);
        }
        callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
