/**
 * `npm run bench [name ...]`: each figure as a ratio to something measured in the same run
 * (the machines are shared and noisy; absolute numbers drift, ratios less so). Writes the
 * tables into docs/benchmarks.md between `<!-- bench:NAME -->` markers.
 *
 * BENCH_SECONDS (default 10) sets each load run's length. The Next.js figures need a build.
 */
import { benchDiscordReader, benchSlackReader } from "./export-readers";
import { benchImportRun } from "./import-run";
import { benchMessageImportRun } from "./message-import-run";
import { benchMigrationFromExport } from "./migration-from-export";
import { benchPreview } from "./preview";
import { benchRehearsal } from "./rehearsal";
import { benchRepliesStage } from "./replies-stage";
import { benchSandboxHttp } from "./sandbox-http";
import { writeSection } from "./support";
import { benchWebhookDelivery } from "./webhook-delivery";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);

const benches: Record<string, () => Promise<string>> = {
  "sandbox-http": () => benchSandboxHttp(seconds),
  "webhook-delivery": () => benchWebhookDelivery(seconds),
  "import-preview": () => benchPreview(),
  "import-run": () => benchImportRun(),
  "message-import-run": () => benchMessageImportRun(),
  rehearsal: () => benchRehearsal(),
  "replies-stage": () => benchRepliesStage(),
  "slack-reader": () => benchSlackReader(),
  "discord-reader": () => benchDiscordReader(),
  "migration-from-export": () => benchMigrationFromExport(),
};

const chosen = process.argv.slice(2);
for (const name of chosen.length > 0 ? chosen : Object.keys(benches)) {
  const bench = benches[name];
  if (!bench) {
    console.error(`Unknown benchmark "${name}". Known: ${Object.keys(benches).join(", ")}`);
    process.exit(2);
  }
  console.log(`\n=== ${name}`);
  const table = await bench();
  console.log(`${table}\n`);
  writeSection(name, table);
}
process.exit(0);
