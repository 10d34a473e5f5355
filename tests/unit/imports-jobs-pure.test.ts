import { describe, expect, it } from "vitest";
import { deriveChannelUrl } from "@/lib/imports/jobs/store/channel-url";
import { csvField, csvLine } from "@/lib/imports/jobs/report/csv";
import { Pacer } from "@/lib/imports/jobs/run/pacer";
import { rehearsalPace } from "@/lib/imports/jobs/rehearse/pace";
import { finalRequestsOfRow, followUpRequests } from "@/lib/imports/jobs/run/requests";
import { channelUrlSchema } from "@/lib/schemas/channels";

describe("deriveChannelUrl", () => {
  it("keeps a source id that is a valid channel URL", () => {
    expect(deriveChannelUrl("group_channels", "legacy-42")).toBe("legacy-42");
    expect(deriveChannelUrl("open_channels", "C024BE91L")).toBe("C024BE91L");
  });

  it("is stable, valid per channelUrlSchema, and differs per source id and kind", () => {
    const a = deriveChannelUrl("group_channels", "legacy 42");
    expect(a).toMatch(/^imp_[0-9a-f]{40}$/);
    expect(deriveChannelUrl("group_channels", "legacy 42")).toBe(a);
    expect(deriveChannelUrl("group_channels", "legacy 43")).not.toBe(a);
    expect(deriveChannelUrl("open_channels", "legacy 42")).not.toBe(a);
    expect(channelUrlSchema.safeParse(a).success).toBe(true);
    expect(
      channelUrlSchema.safeParse(deriveChannelUrl("open_channels", "ünïcødé / spaces, commas"))
        .success,
    ).toBe(true);
  });
});

describe("csv", () => {
  it("quotes only what needs quoting and doubles quotes", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvLine(["a", "", "c,d"])).toBe('a,,"c,d"\r\n');
  });

  it("writes a cell a spreadsheet would run as a formula with an apostrophe in front", () => {
    expect(csvField("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvField("=1+2")).toBe("'=1+2");
    expect(csvField("+1")).toBe("'+1");
    expect(csvField("-2")).toBe("'-2");
    expect(csvField("\tx")).toBe("'\tx");
    expect(csvField("\rx")).toBe('"\'\rx"');
    expect(csvField('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    // One that begins with the apostrophe itself, so that reading it back is exact.
    expect(csvField("'quoted")).toBe("''quoted");
    expect(csvField("a=b")).toBe("a=b");
  });
});

describe("Pacer", () => {
  function clock() {
    let now = 0;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  }
  const limit = (value: number, remaining = 10) => ({
    limit: value,
    windowSeconds: 1,
    remaining,
    retryAfterMs: null,
  });

  it("is unpaced until the platform announces a limit", () => {
    const pacer = new Pacer({ now: clock().now });
    for (let i = 0; i < 1000; i++) expect(pacer.reserve()).toBe(0);
  });

  it("paces just under X-RateLimit-Limit", () => {
    const time = clock();
    const pacer = new Pacer({ now: time.now, headroom: 0.95 });
    pacer.observe(200, limit(50));
    let sent = 0;
    for (let ms = 0; ms < 10_000; ms++) {
      while (pacer.reserve() === 0) sent++;
      time.advance(1);
    }
    // 10 s at 47.5/s, plus the first token.
    expect(sent).toBeGreaterThanOrEqual(470);
    expect(sent).toBeLessThanOrEqual(480);
  });

  it("stops for the whole Retry-After and cuts the rate on a 429, then climbs back", () => {
    const time = clock();
    const pacer = new Pacer({ now: time.now });
    pacer.observe(200, limit(100));
    const before = pacer.currentRate!;
    pacer.observe(429, { ...limit(100, 0), retryAfterMs: 2000 });
    expect(pacer.reserve()).toBe(2000);
    expect(pacer.currentRate!).toBeCloseTo(before * 0.7);
    time.advance(2000);
    for (let i = 0; i < 200; i++) pacer.observe(200, limit(100));
    expect(pacer.currentRate!).toBeCloseTo(99);
    expect(pacer.stats.rateLimited).toBe(1);
  });

  it("with learnFirst, lets one request go until the first answer, then paces at the limit it announced", async () => {
    const time = clock();
    const pacer = new Pacer({ now: time.now, learnFirst: true });
    const sent: number[] = [];
    const callers = [1, 2, 3].map((n) => pacer.acquire().then(() => sent.push(n)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent).toEqual([1]);
    time.advance(1000);
    pacer.observe(200, limit(5, 4));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The first counts as the first paced request: the second waits its turn at 4.95 a second.
    expect(sent).toEqual([1]);
    time.advance(1000 / 4.95);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(sent).toEqual([1, 2]);
    time.advance(1000 / 4.95);
    await Promise.all(callers);
    expect(sent).toEqual([1, 2, 3]);
  });

  it("with learnFirst, lets another request go when the first answer does not come", async () => {
    const pacer = new Pacer({ learnFirst: true, firstAnswerWaitMs: 30 });
    const sent: number[] = [];
    const callers = [1, 2].map((n) => pacer.acquire().then(() => sent.push(n)));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent).toEqual([1]);
    await Promise.all(callers);
    expect(sent).toEqual([1, 2]);
    // Unpaced once it is clear the platform announces no limit.
    pacer.observe(200, null);
    expect(pacer.reserve()).toBe(0);
  });

  it("serves waiting callers in order", async () => {
    const pacer = new Pacer({ initialRate: 200 });
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4, 5].map((n) => pacer.acquire().then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3, 4, 5]);
  });
});

describe("followUpRequests", () => {
  it("sets metadata right after creation, and leaves deactivations and freezes to the last stage", () => {
    expect(followUpRequests("users", "a b", { deactivate: true, metadata: { team: "x" } })).toEqual(
      [{ method: "PUT", path: "/v3/users/a%20b/metadata", body: { metadata: { team: "x" } } }],
    );
    expect(followUpRequests("group_channels", "c1", { freeze: true })).toEqual([]);
    expect(followUpRequests("users", "u", {})).toEqual([]);
  });

  it("deactivates without leaving the channels, and freezes, in the last stage", () => {
    expect(
      finalRequestsOfRow("users", "a b", { deactivate: true, metadata: { team: "x" } }),
    ).toEqual([
      {
        method: "PUT",
        path: "/v3/users/a%20b",
        body: { is_active: false, leave_all_when_deactivated: false },
      },
    ]);
    expect(finalRequestsOfRow("group_channels", "c1", { freeze: true })).toEqual([
      { method: "PUT", path: "/v3/group_channels/c1/freeze", body: { freeze: true } },
    ]);
    expect(finalRequestsOfRow("users", "u", { metadata: { a: "b" } })).toEqual([]);
  });
});

describe("rehearsalPace", () => {
  const since = "2026-11-26T08:00:00.000Z";
  const progress = (done: number, at: string) => ({
    total: 1000,
    done,
    created: done - 10,
    existed: 0,
    failed: 10,
    since,
    at,
  });

  it("is the pace since the rows started to be sent, and the time the rest takes at it", () => {
    const at = "2026-11-26T08:00:20.000Z";
    expect(rehearsalPace(progress(250, at), Date.parse(at))).toEqual({
      total: 1000,
      done: 250,
      created: 240,
      existed: 0,
      failed: 10,
      perSecond: 12.5,
      secondsLeft: 60,
    });
  });

  it("slows down while nothing more is written, and knows no pace in its first second", () => {
    const at = "2026-11-26T08:00:20.000Z";
    expect(rehearsalPace(progress(250, at), Date.parse("2026-11-26T08:00:50.000Z"))).toMatchObject({
      perSecond: 5,
      secondsLeft: 150,
    });
    const early = "2026-11-26T08:00:00.500Z";
    expect(rehearsalPace(progress(40, early), Date.parse(early))).toMatchObject({
      perSecond: 0,
      secondsLeft: null,
    });
  });
});
