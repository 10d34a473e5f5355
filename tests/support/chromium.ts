/** Debian's Chromium as the browser tests and benches launch it on these shared machines. */
export const chromiumExecutable = "/usr/bin/chromium";

export const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
