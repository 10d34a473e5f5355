/**
 * The load generator of the sandbox-http bench, run as a process of its own so that every target
 * is loaded the same way and the generator's CPU can be told from the bench's. Reads its
 * options as JSON from argv[2]; prints the result as JSON on its last line.
 */
import autocannon from "autocannon";

export type LoadOptions = {
  url: string;
  token?: string;
  connections: number;
  seconds: number;
  /** A new user in every body (`user_id` = prefix + a counter), or this fixed body. */
  body: { newUserPrefix: string } | { fixed: string };
};

export type LoadResult = {
  requests: number;
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  /** CPU this process used during the run, in ms. */
  cpuMs: number;
};

const options = JSON.parse(process.argv[2] ?? "{}") as LoadOptions;
const { body } = options;
let counter = 0;
const started = process.cpuUsage();
const result = await autocannon({
  url: options.url,
  method: "POST",
  connections: options.connections,
  duration: options.seconds,
  headers: {
    "content-type": "application/json",
    ...(options.token ? { "Api-Token": options.token } : {}),
  },
  ...("fixed" in body
    ? { body: body.fixed }
    : {
        requests: [
          {
            // A new user every time, so every request is a real creation.
            setupRequest: (request) => ({
              ...request,
              body: JSON.stringify({
                user_id: `${body.newUserPrefix}_${counter++}`,
                nickname: "Bench",
                profile_url: "",
              }),
            }),
          },
        ],
      }),
});
const cpu = process.cpuUsage(started);
const output: LoadResult = {
  requests: result.requests.total,
  requestsPerSecond: Math.round(result.requests.average),
  p99Ms: result.latency.p99,
  non2xx: result.non2xx + result.errors + result.timeouts,
  cpuMs: (cpu.user + cpu.system) / 1000,
};
console.log(JSON.stringify(output));
