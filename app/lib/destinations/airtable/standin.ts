// A stand-in for Airtable's create-records API as a fetch function (ADR 094): it takes only its one
// personal access token, only its bases and tables, keeps each record it is given (typecast and all),
// and counts calls per base a second as Airtable does. `answer` makes it refuse.

export const AIRTABLE_STANDIN_ORIGIN = "https://airtable-standin.test";
export const STANDIN_TOKEN = `patStandin0000000.${"ab".repeat(32)}`;

export interface AirtableStandin {
  fetch: typeof fetch;
  /** Records per "baseId/table", as created. */
  records: Map<string, { fields: Record<string, unknown>; typecast: boolean }[]>;
  /** When set, every call answers this status. */
  answer: number | null;
}

export function startAirtableStandin(tables: Record<string, readonly string[]>): AirtableStandin {
  const standin: AirtableStandin = {
    records: new Map(),
    answer: null,
    fetch: async (input, init) => {
      const url = new URL(typeof input === "string" || input instanceof URL ? String(input) : input.url);
      if (url.origin !== AIRTABLE_STANDIN_ORIGIN) throw new TypeError(`the stand-in does not serve ${url.origin}`);
      const json = (status: number, body: unknown) =>
        new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
      if (new Headers(init?.headers).get("authorization") !== `Bearer ${STANDIN_TOKEN}`)
        return json(401, { error: { type: "AUTHENTICATION_REQUIRED" } });
      if (standin.answer !== null) return json(standin.answer, { error: { type: "STANDIN" } });
      const [, version, base, table] = url.pathname.split("/").map(decodeURIComponent);
      if (init?.method !== "POST" || version !== "v0" || !tables[base]?.includes(table)) return json(404, { error: "NOT_FOUND" });
      const body = JSON.parse(String(init?.body ?? "{}")) as { records: { fields: Record<string, unknown> }[]; typecast?: boolean };
      const kept = standin.records.get(`${base}/${table}`) ?? [];
      const created = body.records.map((record, i) => ({
        id: `rec${kept.length + i}`,
        createdTime: new Date().toISOString(),
        fields: record.fields,
      }));
      standin.records.set(`${base}/${table}`, [
        ...kept,
        ...body.records.map((record) => ({ fields: record.fields, typecast: body.typecast === true })),
      ]);
      return json(200, { records: created });
    },
  };
  return standin;
}
