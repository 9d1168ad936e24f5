import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM of the bench (bench/measure/accept.mjs and upload.mjs use it on real runs)
import { loadTrial } from "../../bench/lib/load.mjs";

// Under `wrangler dev`, a post that meets a proxy-to-Worker connection idle for about 5 s gets a 502
// and fails the measurement (bench/lib/load.mjs). A trial that asks for it first uses every pooled
// connection with GETs of the server's ready path, before the CPU reading starts; elsewhere it does not.

let http: Server;
let url = "";
const seen: string[] = [];

beforeAll(async () => {
  http = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.end("ok");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

/** A server as lib/servers.mjs describes one; its CPU reading notes how many requests came before it. */
function server(runtime: string) {
  const readAfter: number[] = [];
  return { readAfter, server: { runtime, url, readyPath: "/ready", cpuMs: () => (readAfter.push(seen.length), 0) } };
}

async function trial(runtime: string, options?: { freshen: number }) {
  seen.length = 0;
  const { readAfter, server: s } = server(runtime);
  const result = await loadTrial(s, async () => ({ requests: 4 }), options)();
  return { result, readAfter, requests: [...seen] };
}

describe("the bench's load trial under wrangler dev", () => {
  it("uses twice the run's connections with GETs of the ready path before reading CPU", async () => {
    const { result, readAfter, requests } = await trial("wrangler dev", { freshen: 10 });
    expect(requests).toEqual(Array.from({ length: 20 }, () => "GET /ready"));
    expect(readAfter[0]).toBe(20);
    expect(result.cpuMs).toBe(0);
  });

  it("sends nothing but the run elsewhere, or when not asked", async () => {
    expect((await trial("miniflare", { freshen: 10 })).requests).toEqual([]);
    expect((await trial("wrangler dev")).requests).toEqual([]);
  });
});
