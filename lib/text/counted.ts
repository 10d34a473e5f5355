/**
 * A count with its noun in the right number, digits grouped as the console shows them
 * everywhere: "1 row", "2 rows", "1,000 rows". `plural` for nouns that do not just take an s.
 */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? noun : plural}`;
}
