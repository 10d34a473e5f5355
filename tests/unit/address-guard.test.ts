import dns from "node:dns";
import { describe, expect, it, vi } from "vitest";
import { hostWarning, refusalReason } from "@/lib/delivery/address-guard";
import { postJson } from "@/lib/delivery/post-json";

const sandboxPolicy = { allowLoopback: true, allowPrivate: false };
const strictPolicy = { allowLoopback: false, allowPrivate: false };
const privateNotLoopback = { allowLoopback: false, allowPrivate: true };

describe("refusalReason", () => {
  it.each([
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "224.0.0.1",
    "fd00:ec2::254",
    "fe80::1",
    "::ffff:10.0.0.1",
  ])("refuses %s", (address) => {
    expect(refusalReason(address, sandboxPolicy)).toMatch(/private|link-local|reserved/);
  });

  it.each(["93.184.216.34", "1.1.1.1", "172.32.0.1", "2606:4700::1111"])(
    "allows the public address %s",
    (address) => {
      expect(refusalReason(address, strictPolicy)).toBeNull();
    },
  );

  it.each([
    ["::127.0.0.1", "IPv4-compatible loopback", /loopback/],
    ["::ffff:0:a00:1", "SIIT-translated 10.0.0.1", /private/],
    ["2002:a00:1::1", "6to4 of 10.0.0.1", /private/],
    ["::ffff:a9fe:a9fe", "mapped metadata address in hex", /private|link-local/],
    ["64:ff9b::a00:1", "NAT64 of 10.0.0.1", /private/],
    ["64:ff9b:1::c0a8:101", "local-use NAT64 of 192.168.1.1", /private/],
    ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo whose client is 10.0.0.1", /private/],
  ])("judges %s (%s) by the IPv4 address inside it", (address, _form, reason) => {
    expect(refusalReason(address, strictPolicy)).toMatch(reason);
  });

  it.each(["2002:5db8:d822::1", "64:ff9b::808:808", "::ffff:8.8.8.8"])(
    "allows %s, which embeds a public IPv4",
    (address) => {
      expect(refusalReason(address, strictPolicy)).toBeNull();
    },
  );

  it("allows loopback only when the policy does", () => {
    expect(refusalReason("127.0.0.1", sandboxPolicy)).toBeNull();
    expect(refusalReason("::1", sandboxPolicy)).toBeNull();
    expect(refusalReason("127.0.0.1", strictPolicy)).toMatch(/loopback/);
    expect(refusalReason("::ffff:127.0.0.1", strictPolicy)).toMatch(/loopback/);
  });

  // 0.0.0.0 and :: reach this machine: with private ranges allowed and loopback not, they
  // delivered to a listener on 127.0.0.1 (issue 27, item 3).
  it.each([
    ["0.0.0.0", "0.0.0.0"],
    ["0.1.2.3", "0.1.2.3"],
    ["::", "::"],
    ["::ffff:0.0.0.0", "::ffff:0.0.0.0 (0.0.0.0)"],
    ["::ffff:0:0", "::ffff:0:0 (0.0.0.0)"],
    ["::ffff:0:0:0", "::ffff:0:0:0 (0.0.0.0)"],
    ["64:ff9b::", "64:ff9b:: (0.0.0.0)"],
  ])("judges %s, which reaches this machine, as loopback", (address, shown) => {
    expect(refusalReason(address, privateNotLoopback)).toBe(
      `${shown} is this machine, like a loopback address`,
    );
    expect(refusalReason(address, strictPolicy)).toMatch(/like a loopback address/);
    expect(refusalReason(address, sandboxPolicy)).toBeNull();
  });

  it("allows private ranges when told to", () => {
    expect(refusalReason("10.0.0.1", { allowLoopback: false, allowPrivate: true })).toBeNull();
  });
});

describe("postJson refuses before connecting", () => {
  it.each([
    "http://[::127.0.0.1]/hook",
    "http://[::ffff:0:a00:1]/hook",
    "http://[2002:a00:1::1]/hook",
  ])("to %s, marking the refusal as final", async (url) => {
    const outcome = await postJson(url, "{}", { timeoutMs: 1000, policy: strictPolicy });
    expect(outcome).toMatchObject({
      status: null,
      refused: true,
      error: expect.stringMatching(/Refused to connect/),
    });
  });

  it("to a private IP literal", async () => {
    const outcome = await postJson("http://10.0.0.1/hook", "{}", {
      timeoutMs: 1000,
      policy: sandboxPolicy,
    });
    expect(outcome).toMatchObject({
      status: null,
      error: expect.stringMatching(/Refused to connect/),
    });
  });

  it("to the metadata service, in brackets or not", async () => {
    const outcome = await postJson("http://169.254.169.254/latest/meta-data", "{}", {
      timeoutMs: 1000,
      policy: sandboxPolicy,
    });
    expect(outcome.error).toMatch(/Refused to connect/);
    const v6 = await postJson("http://[fd00:ec2::254]/", "{}", {
      timeoutMs: 1000,
      policy: sandboxPolicy,
    });
    expect(v6.error).toMatch(/Refused to connect/);
  });

  // Every way a URL can spell 0.0.0.0 or ::; the URL parser turns them into these hosts.
  it.each([
    "http://0.0.0.0:9/hook",
    "http://0:9/hook",
    "http://0x0:9/hook",
    "http://00:9/hook",
    "http://0.0.0.0.:9/hook",
    "http://[::]:9/hook",
    "http://[::ffff:0.0.0.0]:9/hook",
    "http://[::ffff:0:0]:9/hook",
  ])("to %s when loopback is not allowed, private ranges or not", async (url) => {
    for (const policy of [privateNotLoopback, strictPolicy]) {
      const outcome = await postJson(url, "{}", { timeoutMs: 1000, policy });
      expect(outcome).toMatchObject({
        status: null,
        refused: true,
        error: expect.stringMatching(/^Refused to connect: .* is this machine, like a loopback/),
      });
    }
  });

  it("to a name that resolves to 0.0.0.0", async () => {
    const lookup = vi
      .spyOn(dns, "lookup")
      .mockImplementation(((
        _host: string,
        _options: unknown,
        callback: (error: null, addresses: Array<{ address: string; family: number }>) => void,
      ) => callback(null, [{ address: "0.0.0.0", family: 4 }])) as unknown as typeof dns.lookup);
    try {
      const outcome = await postJson("http://zero.test:9/hook", "{}", {
        timeoutMs: 1000,
        policy: privateNotLoopback,
      });
      expect(outcome).toMatchObject({
        refused: true,
        error: "Refused to connect: 0.0.0.0 is this machine, like a loopback address.",
      });
    } finally {
      lookup.mockRestore();
    }
  });

  it("to a name that resolves to loopback when loopback is not allowed", async () => {
    const outcome = await postJson("http://localhost:9/hook", "{}", {
      timeoutMs: 1000,
      policy: strictPolicy,
    });
    expect(outcome.error).toMatch(/Refused to connect: .*loopback/);
  });

  it("to anything but http and https", async () => {
    const outcome = await postJson("ftp://example.com/", "{}", {
      timeoutMs: 1000,
      policy: strictPolicy,
    });
    expect(outcome.error).toMatch(/Only http and https/);
  });
});

describe("the warning before saving a URL", () => {
  it("names the address a host resolves to, in one sentence", async () => {
    expect(await hostWarning("http://localhost:9/hook", strictPolicy)).toMatch(
      /^localhost resolves to (127\.0\.0\.1|::1), which is a loopback address$/,
    );
    expect(await hostWarning("http://127.0.0.1:9/hook", strictPolicy)).toBe(
      "127.0.0.1 is a loopback address",
    );
    expect(
      await hostWarning("http://localhost:9/hook", { ...strictPolicy, allowLoopback: true }),
    ).toBeNull();
  });

  it("says a name that resolves to 0.0.0.0 reaches this machine", async () => {
    const lookup = vi
      .spyOn(dns.promises, "lookup")
      .mockResolvedValue([{ address: "0.0.0.0", family: 4 }] as never);
    try {
      expect(await hostWarning("http://zero.test:9/hook", privateNotLoopback)).toBe(
        "zero.test resolves to 0.0.0.0, which is this machine, like a loopback address",
      );
    } finally {
      lookup.mockRestore();
    }
    expect(await hostWarning("http://0x0:9/hook", privateNotLoopback)).toBe(
      "0.0.0.0 is this machine, like a loopback address",
    );
  });
});
