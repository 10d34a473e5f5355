import fs from "node:fs";
import path from "node:path";

/**
 * Which API and console test files `npm test` runs a second time on PostgreSQL, and why.
 *
 * Every file runs on PGlite. PGlite is PostgreSQL itself (compiled to WebAssembly), so SQL,
 * constraints and plans are the same on both; what can differ is everything around the engine:
 * - the driver, which carries values in and out (text, bytes, JSON, timestamps; the U+FEFF
 *   loss of issue 27 was PGlite's alone), and the raw statements of lib/db/raw.ts;
 * - concurrency: PGlite is one connection in one process, PostgreSQL a pool of them shared by
 *   processes, so leases, row locks (SKIP LOCKED), conflicting concurrent writes and
 *   LISTEN/NOTIFY only really happen there;
 * - crashes and restarts (PGlite's directory lock and recovery, PostgreSQL's dropped sessions);
 * - schemas and migrations of stored data.
 * A file whose subject is one of those runs on both (`bothDatabases`); a file that proves HTTP
 * contract rules, a client's behaviour or in-memory logic over storage the former files cover
 * runs on PGlite only (`pgliteOnly`). Import jobs keep their own tables on PGlite in the API
 * tests (tests/api/imports-harness.ts), so there a second run only changes the sandbox under
 * them.
 *
 * A file in neither list runs on both (the safe side) and tests/unit/database-suites.test.ts
 * fails until it is put in one, with its reason. README.md's Tests section tells the rule.
 */
export const bothDatabases: Record<string, string> = {
  "tests/console/actions-fuzz.test.ts":
    "issue 27 asks for no 5xx from any action on both databases: hostile input through the driver",
  "tests/api/db-prepared-query.test.ts":
    "lib/db/raw.ts: parameters on PostgreSQL, escaped literals on PGlite; hostile text both ways",
  "tests/api/imports-workers.test.ts":
    "two runners share a job through SKIP LOCKED claims (row locking); needs PostgreSQL",
  "tests/api/migrations-data.test.ts": "data migrations of stored rows (storage)",
  "tests/api/sandbox-app-cache.test.ts":
    "a change through the administration door or another process reaches every process's " +
    "cache and rate limiter through NOTIFY (notifications); needs PostgreSQL",
  "tests/api/sandbox-contract-edges.test.ts":
    "text handling: a leading U+FEFF and odd bytes stored and read back (the loss was PGlite's)",
  "tests/api/sandbox-fuzz.test.ts":
    "text handling: hostile strings written and read back through the driver",
  "tests/api/sandbox-group-channels.test.ts":
    "the sandbox's writes: concurrent creations of one channel (conflicts on a pool)",
  "tests/api/sandbox-group-members.test.ts":
    "the sandbox's writes: concurrent invitations serialised under the member cap (row locking)",
  "tests/api/sandbox-message-filing.test.ts":
    "the sandbox's writes: migration batches filed into the history under concurrent readers",
  "tests/api/sandbox-messages.test.ts":
    "the sandbox's writes: messages, threads and concurrent dedup_id sends",
  "tests/api/sandbox-migration.test.ts":
    "the sandbox's writes: migrated history stored in batches and filed when read",
  "tests/api/sandbox-open-channels.test.ts":
    "the sandbox's writes: concurrent creations of one open channel (conflicts on a pool)",
  "tests/api/sandbox-users.test.ts":
    "the sandbox's writes: concurrent creations and metadata updates under a cap (row locking)",
  "tests/api/sandbox-webhook-claim.test.ts": "the webhook outbox's claims and leases",
  "tests/api/sandbox-webhook-deletion.test.ts":
    "storage: deleting deliveries deletes their attempts (no foreign key)",
  "tests/api/sandbox-webhook-delivery.test.ts":
    "the outbox's delivery worker: leases and retries stored between attempts",
  "tests/api/sandbox-webhook-log.test.ts": "the delivery log's filters and paging run in SQL",
  "tests/api/sandbox-webhook-kill.test.ts":
    "crash-restart: delivery across a killed server's slow restart (leases held by the dead)",
  "tests/api/sandbox-webhook-stall.test.ts":
    "crash-restart: delivery across a stalled server (leases that run out during the stall)",
  "tests/console/crash-restart.test.ts":
    "crash-restart of the console; PostgreSQL's form waits for the dying holder",
  "tests/console/imports-restart.test.ts":
    "crash-restart of the console's job runner; needs PostgreSQL (shares the console's schema)",
};

export const pgliteOnly: Record<string, string> = {
  "tests/api/compatibility-check.test.ts":
    "the client's read-only checks over HTTP; the sandbox's storage is covered by its own files",
  "tests/api/conformance.test.ts": "the conformance CLI's report over HTTP",
  "tests/api/database-lock.test.ts":
    "PGlite's own directory lock; skips itself on PostgreSQL (crash-restart there: console)",
  "tests/api/imports-control.test.ts":
    "the runner's retries and pauses; its job tables are PGlite in both runs",
  "tests/api/imports-export-flow.test.ts":
    "an export's imports planned and run; its job tables are PGlite in both runs",
  "tests/api/imports-delta.test.ts":
    "a newer export's messages planned against an earlier import's rows and run on the sandbox; its job tables are PGlite in both runs",
  "tests/api/imports-final-stage.test.ts":
    "the last stage's deactivations against the sandbox; its job tables are PGlite in both runs",
  "tests/api/imports-targets.test.ts":
    "jobs on two targets (runs, last stage, Verify, pace); its job tables are PGlite in both runs",
  "tests/api/imports-threads-reliability.test.ts":
    "the replies stage's worker killed over a faulty platform; its job tables are PGlite in both runs",
  "tests/api/imports-threads.test.ts":
    "the replies stage against the sandbox; its job tables are PGlite in both runs, and the " +
    "sandbox's sends and reactions run on both in sandbox-messages and sandbox-reactions",
  "tests/api/imports-verify.test.ts":
    "Verify's reads of the sandbox; its job tables are PGlite in both runs",
  "tests/api/imports-messages-reliability.test.ts":
    "a worker's crash over a faulty platform; its job tables are PGlite in both runs",
  "tests/api/imports-messages-state.test.ts":
    "a messages job's state; its job tables are PGlite in both runs",
  "tests/api/imports-messages.test.ts":
    "messages import against the sandbox; its job tables are PGlite in both runs, and the " +
    "sandbox's message writes run on both in sandbox-messages and sandbox-migration",
  "tests/api/imports-plan.test.ts": "planners and rehearsals; job tables are PGlite in both runs",
  "tests/api/imports-rate-limited.test.ts":
    "the runner against a platform answering 429; job tables are PGlite in both runs",
  "tests/api/imports-reliability.test.ts":
    "a worker's crash over a faulty platform; its job tables are PGlite in both runs",
  "tests/api/imports-run.test.ts":
    "an import job against the sandbox; its job tables are PGlite in both runs",
  "tests/api/platform-client.test.ts":
    "the platform client's retries, timeouts and rate limiting against scripted peers",
  "tests/api/sandbox-applications.test.ts":
    "the administration door drops the cache in its own process (memory); across processes " +
    "is sandbox-app-cache",
  "tests/api/sandbox-channel-updates.test.ts":
    "the contract's rules for updating channels (validation, answers), no concurrency",
  "tests/api/sandbox-infra.test.ts": "addressing and authentication, answered before storage",
  "tests/api/sandbox-limits.test.ts": "body limits, rate limits and faults, held in memory",
  "tests/api/sandbox-reactions.test.ts":
    "the contract's rules for reactions; no concurrency, plain text keys",
  "tests/api/sandbox-standalone.test.ts": "the standalone sandbox prints the token it generates",
  "tests/api/sandbox-supporting-operations.test.ts":
    "paging with token, list filters and metadata as the vendor's SDKs use them (contract)",
  "tests/api/sandbox-webhook-address-guard.test.ts": "the delivery address guard (DNS, addresses)",
  "tests/api/sandbox-webhook-settings.test.ts":
    "the settings' validation and answers; the cache across processes is sandbox-app-cache",
  "tests/console/hardening.test.ts":
    "request guards, sign-in throttling (in memory) and start-up errors",
  "tests/console/imports-references.test.ts": "the wizard's references route over HTTP",
  "tests/console/imports-routes.test.ts": "import pages and routes require a session",
  "tests/console/sandbox-mount.test.ts": "the sandbox mounted at /sandbox (routing)",
  "tests/console/session.test.ts": "pages require a session",
  "tests/console/targets.test.ts":
    "targets added, chosen and removed over HTTP; plain inserts and reads, no concurrency",
  "tests/console/webhooks-routes.test.ts": "the Webhooks page's routes refuse a bad query",
};

const root = path.resolve(import.meta.dirname, "../..");

/** The test files of `folder` ("tests/api" or "tests/console"), as paths from the repository root. */
export function testFiles(folder: string): string[] {
  return fs
    .readdirSync(path.join(root, folder))
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => `${folder}/${name}`)
    .sort();
}

/** The files of `folder` that run on PostgreSQL too: all but the PGlite-only ones. */
export function postgresFiles(folder: string): string[] {
  return testFiles(folder).filter((file) => !(file in pgliteOnly));
}
