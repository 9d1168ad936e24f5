// The local sink's stand-in for Airtable (ADR 094), so that under `npm start` a newcomer sees a record
// arrive on the sink's page: create records, with its one local token.
import { readFileSync } from "node:fs";

/** The base, table and token `npm start` points a form at (local-sink.json: the Worker's local default reads the same file). */
export const AIRTABLE_LOCAL = JSON.parse(readFileSync(new URL("./local-sink.json", import.meta.url), "utf8"));

export const sink = {
  kind: "airtable",
  /** `npm start`: the settings (by suffix) pointing a form here while `switch`, its on-switch, is unset. */
  local: {
    switch: "AIRTABLE_BASE_ID",
    settings: ({ origin }) => ({
      AIRTABLE_BASE_ID: AIRTABLE_LOCAL.baseId,
      AIRTABLE_TABLE: AIRTABLE_LOCAL.table,
      AIRTABLE_TOKEN: AIRTABLE_LOCAL.token,
      AIRTABLE_API_URL: `${origin}/airtable`,
    }),
  },
  shows: "Airtable records",
  /** The stand-in; `keep(message)` shows a message on the sink's page. */
  start(_origin, keep) {
    const records = new Map();

    /** Answers a request under /airtable: { status, body } or null when the path is not its. */
    function handle(method, path, headers, body) {
      const table = /^\/airtable\/v0\/([^/]+)\/([^/]+)$/.exec(path);
      if (table && method === "POST") {
        if (headers.authorization !== `Bearer ${AIRTABLE_LOCAL.token}`)
          return { status: 401, body: { error: { type: "AUTHENTICATION_REQUIRED" } } };
        const [base, name] = [decodeURIComponent(table[1]), decodeURIComponent(table[2])];
        const parsed = JSON.parse(body);
        const kept = records.get(`${base}/${name}`) ?? [];
        const created = parsed.records.map((record, i) => ({
          id: `rec${kept.length + i + 1}`,
          createdTime: new Date().toISOString(),
          fields: record.fields,
        }));
        records.set(`${base}/${name}`, [...kept, ...created]);
        for (const record of created) {
          keep({
            kind: "airtable",
            at: record.createdTime,
            title: `record ${record.id} in table ${name}`,
            headers: [
              ["Base", base],
              ["Typecast", String(parsed.typecast === true)],
            ],
            text: Object.entries(record.fields)
              .map(([field, value]) => `${field}: ${value}`)
              .join("\n"),
            reference: typeof record.fields.Submission === "string" ? record.fields.Submission : null,
          });
        }
        return { status: 200, body: { records: created } };
      }
      return null;
    }
    return { handle, records };
  },
};
