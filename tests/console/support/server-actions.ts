import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../../..");

/** The id the built console gives a server action, read from its manifest (`next build` first). */
export function serverActionId(filename: string, exportedName: string): string | undefined {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(root, ".next/server/server-reference-manifest.json"), "utf8"),
  ) as { node: Record<string, { filename: string; exportedName: string }> };
  return Object.entries(manifest.node).find(
    ([, action]) => action.filename === filename && action.exportedName === exportedName,
  )?.[0];
}
