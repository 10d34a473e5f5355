/** An API token as the console shows it: eight dots and its last four characters. */
export function maskToken(token: string): string {
  return token.length <= 8 ? "••••••••" : `${"•".repeat(8)}${token.slice(-4)}`;
}
