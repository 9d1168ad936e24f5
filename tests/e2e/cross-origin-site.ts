import { createServer, type Server } from "node:http";
import escape from "escape-html";

// Two tiny static sites on other loopback origins, standing in for a customer's site that posts to
// Gatepost: `allowed` is in the forms' FORM_ALLOWED_ORIGINS, `refused` is not. Each is also reached
// from another *site* (`crossSite`: OTHER_SITE_HOST, which the browser maps to 127.0.0.1), where a
// browser blocking third-party storage treats Gatepost's frame as third-party. Both serve the same
// pages, built from query parameters (Gatepost's URL, the stand-in script), so they can start before
// Gatepost does:
//   /plain.html — a plain HTML form posting to the API (navigation, 303 or an error page)
//   /fetch.html — the same form sent with fetch() as JSON; the answer is shown in a status line
//   /raw.html?html=<base64url> — any page a test brings (tests/e2e/docs.test.ts runs the docs' embed
//   snippets there: a page served by page.route would count as public, and Chromium would then refuse
//   its requests to the loopback stand-in)

/** A name of another registrable domain than Gatepost's 127.0.0.1; chromium.ts maps it to 127.0.0.1. */
export const OTHER_SITE_HOST = "embed-host.test";

export interface StaticSites {
  allowed: string;
  refused: string;
  /** The same two sites under OTHER_SITE_HOST: another site than Gatepost's, not only another port. */
  crossSite: { allowed: string; refused: string };
  stop: () => Promise<void>;
}

export async function startStaticSites(): Promise<StaticSites> {
  const servers = [await listen(), await listen()];
  return {
    allowed: origin(servers[0]),
    refused: origin(servers[1]),
    crossSite: { allowed: origin(servers[0], OTHER_SITE_HOST), refused: origin(servers[1], OTHER_SITE_HOST) },
    stop: async () => {
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    },
  };
}

function origin(server: Server, host = "127.0.0.1"): string {
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("static site has no port");
  return `http://${host}:${address.port}`;
}

function listen(): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const gatepost = url.searchParams.get("gatepost") ?? "";
    const script = url.searchParams.get("script") ?? "";
    const raw = url.pathname === "/raw.html" ? Buffer.from(url.searchParams.get("html") ?? "", "base64url").toString("utf8") : null;
    const html =
      raw ??
      (url.pathname === "/plain.html"
        ? page(gatepost, script, false)
        : url.pathname === "/fetch.html"
          ? page(gatepost, script, true)
          : null);
    if (!html) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

function page(gatepost: string, script: string, withFetch: boolean): string {
  const action = `${gatepost}/api/forms/contact/submissions`;
  const sender = withFetch
    ? `<script>
document.querySelector("form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const out = document.getElementById("result");
  const body = Object.fromEntries(new FormData(event.target));
  try {
    const res = await fetch(${JSON.stringify(action)}, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "idempotency-key": "fetch-" + Date.now() },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    out.textContent = [res.status, json.status || json.code, json.id || ""].join(" ").trim();
  } catch (error) {
    out.textContent = "network error";
  }
});
</script>`
    : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Customer site</title></head><body>
<h1>Customer site</h1>
<form method="post" action="${escape(action)}">
<label for="name">Your name</label><input id="name" name="name">
<label for="email">E-mail address</label><input id="email" name="email">
<label for="message">Message</label><textarea id="message" name="message"></textarea>
<input type="text" name="_gotcha" tabindex="-1" autocomplete="off" style="position:absolute;left:-9999px" aria-hidden="true">
<div id="captcha"></div>
<button type="submit">Send</button>
</form>
<p role="status" id="result"></p>
<script>window.onTurnstile = () => turnstile.render("#captcha", { sitekey: "1x00000000000000000000AA", action: "contact" });</script>
<script src="${escape(script)}?onload=onTurnstile" async></script>
${sender}
</body></html>`;
}
