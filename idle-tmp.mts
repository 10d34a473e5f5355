import fs from "node:fs";
import { chromium } from "@playwright/test";
import { chromiumArgs, chromiumExecutable } from "/work/main/tests/support/chromium.ts";
const base = "http://127.0.0.1:3300";
const hz = 100;
function chromeCpu() {
  const t: Record<string, number> = {};
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes("chromium")) continue;
      const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      const type = /--type=(\S+)/.exec(cmd.replaceAll("\0", " "))?.[1] ?? "browser";
      t[type] = (t[type] ?? 0) + (Number(f[11]) + Number(f[12])) / hz;
    } catch {}
  }
  return t;
}
const browser = await chromium.launch({ executablePath: process.env.EXE ?? chromiumExecutable, args: chromiumArgs.concat(process.argv.slice(2)) });
let ctx = await browser.newContext();
let page = await ctx.newPage();
await page.goto(base + "/sign-in");
await page.getByLabel(/password/i).fill("e2e-admin-password-123");
await page.getByRole("button", { name: /sign in/i }).click();
await page.waitForURL(base + "/");
const state = await ctx.storageState();
await ctx.close();
const sums: Record<string, number> = {};
for (const round of [1, 2, 3, 4]) for (const path of ["about:blank", "/webhooks"]) {
  const c0 = chromeCpu();
  const ctx = await browser.newContext({ storageState: state });
  const page = await ctx.newPage();
  const s = Date.now();
  await page.goto(path.startsWith('/') ? base + path : path);
  await page.waitForLoadState("networkidle");
  const c1 = chromeCpu();
  await ctx.close();
  await new Promise((r) => setTimeout(r, 300));
  const c2 = chromeCpu();
  if (round > 1) for (const k of Object.keys(c1)) { sums[path + " " + k] = (sums[path + " " + k] ?? 0) + (c1[k] - (c0[k] ?? 0)) / 3; sums[path + " wall"] = (sums[path + " wall"] ?? 0) + 0; }
  if (round > 1) sums[path + " WALL"] = (sums[path + " WALL"] ?? 0) + (Date.now() - s) / 3000;
}
await browser.close();
console.log(process.argv.slice(2).join(' ') || 'baseline', JSON.stringify(Object.fromEntries(Object.entries(sums).filter(([k,v]) => v > 0.02).map(([k, v]) => [k, +v.toFixed(2)]))));
