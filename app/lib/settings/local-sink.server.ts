import { isLoopbackHost } from "~/lib/http/loopback";
import { KIND_SPECS, type FormSettingSuffix } from "~/lib/destinations/registry";
import type { SettingProblem } from "~/lib/settings/setting-problem";

// `npm start`'s local sink as the Worker knows it: where a console form's unset destinations go (ADR 066). Honoured
// only with ALLOW_LOOPBACK_WEBHOOKS and a loopback origin, so a deployed Worker has none.

export interface LocalSink {
  origin: string;
  /** The sink's own whsec_ secret: what signs a console form's webhook until the console makes one. */
  secret: string;
  sheetsKey?: string | null;
}

/** Reads LOCAL_SINK_URL and LOCAL_SINK_SECRET; null unless both are set and allowed. Never throws. */
export function readLocalSink(
  env: { LOCAL_SINK_URL?: unknown; LOCAL_SINK_SECRET?: unknown; LOCAL_SINK_SHEETS_KEY?: unknown },
  allowLoopbackHttp: boolean,
  problems: SettingProblem[],
): LocalSink | null {
  const raw = typeof env.LOCAL_SINK_URL === "string" ? env.LOCAL_SINK_URL.trim() : "";
  const secret = typeof env.LOCAL_SINK_SECRET === "string" ? env.LOCAL_SINK_SECRET.trim() : "";
  if (raw === "") return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (!allowLoopbackHttp || !url || url.protocol !== "http:" || !isLoopbackHost(url.hostname) || !secret.startsWith("whsec_")) {
    problems.push({
      variable: "LOCAL_SINK_URL",
      message:
        "LOCAL_SINK_URL is for `npm start` only: an http origin on this computer, with ALLOW_LOOPBACK_WEBHOOKS and a whsec_ LOCAL_SINK_SECRET; it is ignored",
    });
    return null;
  }
  const sheetsKey =
    typeof env.LOCAL_SINK_SHEETS_KEY === "string" && env.LOCAL_SINK_SHEETS_KEY.trim() ? env.LOCAL_SINK_SHEETS_KEY.trim() : null;
  return { origin: url.origin, secret, sheetsKey };
}

/** The destination settings console form `formId` falls back to under `npm start`: every kind to the sink. */
export function localSinkSettings(sink: LocalSink, formId: string): Partial<Record<FormSettingSuffix, string>> {
  const values: Partial<Record<FormSettingSuffix, string>> = {};
  for (const spec of KIND_SPECS) {
    for (const setting of spec.settings) {
      const local = setting.local?.(sink, formId);
      if (local) values[setting.suffix] = local;
    }
  }
  return values;
}
