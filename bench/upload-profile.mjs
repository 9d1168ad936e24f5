// Where a post with a 1 MiB file spends its CPU (issue 50, point 6): under Miniflare, one post at a time,
// the sampling profile of the app's isolate (what Workers bills as CPU time) beside the CPU of the whole
// workerd process (what bench/measure/cpu-free.mjs reports: the isolate, plus workerd receiving the body
// and the local R2 and D1 simulators storing it). Gatepost's POST /f/apply against the bare app's
// POST /submit?upload (verify, R2 put of request.formData()'s file, insert). A diagnostic run by hand:
// `node bench/upload-profile.mjs` (BENCH_SKIP_BUILD=1 skips Gatepost's build; UPLOAD_PROFILE_REUSE=1 every build).
import { randomBytes } from "node:crypto";
import path from "node:path";
import { hashPassword } from "../scripts/hash-password.mjs";
import { prepareApps } from "./lib/apps.mjs";
import { profileRequests } from "./lib/profile.mjs";
import { startProviders } from "./lib/providers.mjs";
import { ROOT, startServer, stopAllServers } from "./lib/servers.mjs";
import { baselineFields, benchPdf, gatepostFields, multipartBodies } from "./lib/submit.mjs";

const POSTS = Number(process.env.UPLOAD_PROFILE_POSTS || 20);
const log = (...args) => console.log(`[upload-profile ${new Date().toISOString().slice(11, 19)}]`, ...args);
const providers = await startProviders({ sinkSecret: `whsec_${randomBytes(32).toString("base64")}` });
try {
  // UPLOAD_PROFILE_REUSE=1: the bundles a bench run left in bench/.baseline, as they are.
  const out = path.join(ROOT, "bench/.baseline");
  const apps = process.env.UPLOAD_PROFILE_REUSE
    ? {
        gatepost: { name: "gatepost", config: path.join(out, "gatepost/wrangler.json"), bundleDir: path.join(out, "bundles/gatepost") },
        baseline: { name: "baseline", config: path.join(out, "bare/wrangler.toml"), bundleDir: path.join(out, "bundles/baseline") },
      }
    : prepareApps({ skipBuild: Boolean(process.env.BENCH_SKIP_BUILD), log });
  const signingSecret = randomBytes(32).toString("hex");
  const gatepost = {
    ADMIN_PASSWORD_HASH: await hashPassword(randomBytes(18).toString("base64url")),
    SESSION_SECRET: randomBytes(32).toString("base64url"),
    SETTINGS_ENCRYPTION_KEY: randomBytes(32).toString("base64url"),
    FILE_LINK_SECRET: randomBytes(32).toString("base64url"),
    TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
    TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA",
    TURNSTILE_VERIFY_URL: providers.verifyUrl,
    TURNSTILE_SCRIPT_URL: providers.scriptUrl,
    FORM_SIGNING_SECRET: signingSecret,
    FORM_MIN_FILL_SECONDS: "0",
    FORM_RATE_LIMIT_PER_MINUTE: "1000000000",
    FORM_RATE_LIMIT_PER_DAY: "1000000000",
    LOCAL_DRAIN_BODIES: "",
  };
  const baseline = { TURNSTILE_SECRET_KEY: gatepost.TURNSTILE_SECRET_KEY, TURNSTILE_VERIFY_URL: providers.verifyUrl };
  const file = { field: "cv", name: "bench-cv.pdf", type: "application/pdf", bytes: benchPdf(1024 * 1024) };
  const subjects = [
    [
      "Gatepost POST /f/apply",
      apps.gatepost,
      gatepost,
      "/f/apply",
      (url) => gatepostFields(url, "apply", { signingSecret, fields: { name: "Bench Mark", email: "bench@example.org" } }),
    ],
    [
      "bare app POST /submit?upload",
      apps.baseline,
      baseline,
      "/submit?upload",
      (url) => baselineFields(url, { name: "Bench Mark", email: "bench@example.org" }),
    ],
  ];
  for (const [label, app, bindings, pathname, fieldsOf] of subjects) {
    const server = await startServer("miniflare", app, { bindings, name: `upload-profile-${app.name}`, inspect: true });
    try {
      const url = `${server.url}${pathname}`;
      const { makeBody, contentType } = multipartBodies(await fieldsOf(url), file);
      const post = async () => {
        const res = await fetch(url, {
          method: "POST",
          redirect: "manual",
          headers: { origin: server.url, "content-type": contentType },
          body: makeBody(),
        });
        await res.arrayBuffer();
        if (res.status !== 303) throw new Error(`${label}: ${res.status}`);
      };
      for (let i = 0; i < 5; i++) await post();
      const before = server.cpuMs();
      const profile = await profileRequests({
        inspectorPort: server.inspectorPort,
        bundleFile: server.bundleFile,
        work: async () => {
          for (let i = 0; i < POSTS; i++) await post();
          return POSTS;
        },
      });
      const workerdMs = (server.cpuMs() - before) / POSTS;
      console.log(
        JSON.stringify(
          {
            label,
            posts: POSTS,
            isolateCpuMsPerPost: profile.cpuMsPerRequest,
            workerdCpuMsPerPost: Math.round(workerdMs * 100) / 100,
            topGroups: profile.topGroups,
            topFunctions: profile.topFunctions,
          },
          null,
          1,
        ),
      );
    } finally {
      await server.stop();
    }
  }
} finally {
  await providers.stop();
  await stopAllServers();
}
