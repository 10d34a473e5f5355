import http from "node:http";

// The yardstick: a bare node:http JSON handler that reads the body and answers it back.
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString() || "{}";
    const parsed = JSON.parse(body) as unknown;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(parsed));
  });
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  console.log(`echo listening on http://127.0.0.1:${port}`);
});
setInterval(() => {
  try {
    process.kill(process.ppid, 0);
  } catch {
    process.exit(0);
  }
}, 1000).unref();
