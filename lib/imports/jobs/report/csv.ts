/** RFC 4180 text: fields with a comma, quote, CR or LF are quoted, quotes doubled; CRLF line ends. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}
