// Preloaded into a test server (NODE_OPTIONS=--import) to give names addresses the way
// /etc/hosts would, without touching the machine: TEST_HOSTS="zero.test=0.0.0.0,other=::".
// Every other name resolves as usual.
import dns from "node:dns";

const hosts = new Map(
  (process.env.TEST_HOSTS ?? "")
    .split(",")
    .filter(Boolean)
    .map((entry) => entry.split("=")),
);
const lookup = dns.lookup;

dns.lookup = function (hostname, options, callback) {
  const address = hosts.get(hostname);
  if (address === undefined) return lookup.call(dns, hostname, options, callback);
  const done = typeof options === "function" ? options : callback;
  const family = address.includes(":") ? 6 : 4;
  const all = typeof options === "object" && options !== null && options.all;
  process.nextTick(() => (all ? done(null, [{ address, family }]) : done(null, address, family)));
};
