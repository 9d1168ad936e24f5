import { exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey } from "jose";

// A stand-in for Google's token endpoint and the Sheets values API as a fetch function (ADR 093): it checks the
// service account's JWT and each token, and keeps the rows appended. `answer` makes Sheets refuse.

export const STANDIN_ORIGIN = "https://sheets-standin.test";

export interface SheetsStandin {
  fetch: typeof fetch;
  /** The service account key JSON whose private half signs (token_uri: the stand-in). */
  keyJson: string;
  clientEmail: string;
  rows: Map<string, unknown[][]>;
  tokenRequests: Record<string, unknown>[];
  appendQueries: string[];
  /** When set, every Sheets call answers this status. */
  answer: number | null;
}

export async function startSheetsStandin(spreadsheets: readonly string[] = []): Promise<SheetsStandin> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  const clientEmail = "gatepost@standin-project.iam.gserviceaccount.com";
  const tokenUri = `${STANDIN_ORIGIN}/token`;
  const keyJson = JSON.stringify({
    type: "service_account",
    client_email: clientEmail,
    private_key: await exportPKCS8(privateKey as CryptoKey),
    private_key_id: "standin-key-1",
    token_uri: tokenUri,
  });
  const issued = new Set<string>();
  const standin: SheetsStandin = {
    keyJson,
    clientEmail,
    rows: new Map(),
    tokenRequests: [],
    appendQueries: [],
    answer: null,
    fetch: async (input, init) => {
      const url = new URL(typeof input === "string" || input instanceof URL ? String(input) : input.url);
      if (url.origin !== STANDIN_ORIGIN) throw new TypeError(`the stand-in does not serve ${url.origin}`);
      const json = (status: number, body: unknown) =>
        new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
      if (url.pathname === "/token") {
        const form = new URLSearchParams(String(init?.body ?? ""));
        if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return json(400, { error: "unsupported_grant_type" });
        try {
          const { payload, protectedHeader } = await jwtVerify(form.get("assertion") ?? "", publicKey, {
            algorithms: ["RS256"],
            issuer: clientEmail,
            audience: tokenUri,
            maxTokenAge: "1h",
          });
          if (payload.scope !== "https://www.googleapis.com/auth/spreadsheets" || protectedHeader.kid !== "standin-key-1") {
            return json(400, { error: "invalid_scope" });
          }
          standin.tokenRequests.push(payload);
        } catch (error) {
          return json(400, { error: "invalid_grant", error_description: String(error) });
        }
        const token = `ya29.standin-${issued.size + 1}`;
        issued.add(token);
        return json(200, { access_token: token, expires_in: 3599, token_type: "Bearer" });
      }
      const auth = new Headers(init?.headers).get("authorization") ?? "";
      if (!issued.has(auth.replace(/^Bearer /, ""))) return json(401, { error: { code: 401, status: "UNAUTHENTICATED" } });
      if (standin.answer !== null) return json(standin.answer, { error: { code: standin.answer } });
      const match = /^\/v4\/spreadsheets\/([^/]+)\/values\/([^/]+?)(:append)?$/.exec(url.pathname);
      if (!match) return json(404, { error: { code: 404 } });
      const [, id, rawRange, append] = match;
      if (!spreadsheets.includes(id)) return json(404, { error: { code: 404, status: "NOT_FOUND" } });
      const tab = /^'(.*)'!/.exec(decodeURIComponent(rawRange))?.[1] ?? "Sheet1";
      const kept = standin.rows.get(`${id}/${tab}`) ?? [];
      if (!append) return json(200, { range: `${tab}!1:1`, majorDimension: "ROWS", ...(kept.length ? { values: [kept[0]] } : {}) });
      standin.appendQueries.push(url.search);
      const body = JSON.parse(String(init?.body ?? "{}")) as { values: unknown[][] };
      standin.rows.set(`${id}/${tab}`, [...kept, ...body.values]);
      return json(200, { spreadsheetId: id, updates: { updatedRows: body.values.length } });
    },
  };
  return standin;
}
