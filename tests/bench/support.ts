import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "../..");

/** Replaces (or appends) the block between `<!-- bench:NAME -->` markers in docs/benchmarks.md. */
export function writeSection(name: string, markdown: string) {
  const file = path.join(root, "docs", "benchmarks.md");
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "# Benchmarks\n";
  const begin = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${begin}\n${markdown.trim()}\n${end}`;
  const pattern = new RegExp(`${begin}[\\s\\S]*?${end}`);
  fs.writeFileSync(
    file,
    pattern.test(text) ? text.replace(pattern, () => block) : `${text.trimEnd()}\n\n${block}\n`,
  );
}

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  return `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

export function isBuilt(): boolean {
  return fs.existsSync(path.join(root, ".next", "BUILD_ID"));
}

/**
 * Runs a bench script as a child with `--conditions=react-server` (the job modules are
 * server-only) and parses the JSON it prints on its last line.
 */
export function runBenchChild<T>(script: string, env: Record<string, string>): Promise<T> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) => {
      const line = output.trim().split("\n").at(-1) ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line) as T);
      else reject(new Error(`${script} exited with ${code}:\n${output}`));
    }),
  );
}
