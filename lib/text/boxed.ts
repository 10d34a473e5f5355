/**
 * Lines framed in a box, with a blank line above and below, so that a secret printed once at
 * start-up (a generated password or API token) stands out in a server log.
 */
export function boxed(lines: string[]): string {
  const width = Math.max(...lines.map((line) => line.length));
  const rule = "═".repeat(width + 2);
  return [
    "",
    `╔${rule}╗`,
    ...lines.map((line) => `║ ${line.padEnd(width)} ║`),
    `╚${rule}╝`,
    "",
  ].join("\n");
}
