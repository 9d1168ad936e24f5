// The local sink's stand-in for Google Sheets (ADR 093), so a newcomer sees a row arrive under `npm start`: a token
// endpoint that checks the service account's JWT and the values API, a tab each.
import { createVerify, generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";

/** The local spreadsheet's id (local-sink.json: the Worker's local default reads the same file). */
export const SHEETS_LOCAL_ID = JSON.parse(readFileSync(new URL("./local-sink.json", import.meta.url), "utf8")).spreadsheetId;

const SCOPE = "https://www.googleapis.com/auth/spreadsheets";

function base64url(text) {
  return Buffer.from(text, "base64url");
}

/** The JWT's claims when its RS256 signature verifies with `publicKey`; null otherwise. */
export function verifyJwt(jwt, publicKey) {
  const [head, body, signature] = String(jwt).split(".");
  if (!head || !body || !signature) return null;
  const header = JSON.parse(base64url(head).toString("utf8"));
  if (header.alg !== "RS256") return null;
  const ok = createVerify("RSA-SHA256").update(`${head}.${body}`).verify(publicKey, base64url(signature));
  return ok ? JSON.parse(base64url(body).toString("utf8")) : null;
}

export const sink = {
  kind: "sheets",
  /** `npm start`: the settings (by suffix) pointing a form here while `switch`, its on-switch, is unset. */
  local: {
    switch: "SHEETS_SPREADSHEET_ID",
    // A tab per form, so each form's rows sit under its own header row.
    settings: ({ origin, sheetsKey, formId }) => ({
      SHEETS_SPREADSHEET_ID: SHEETS_LOCAL_ID,
      SHEETS_TAB: formId,
      SHEETS_SERVICE_ACCOUNT_KEY: sheetsKey,
      SHEETS_API_URL: `${origin}/sheets`,
    }),
  },
  shows: "Google Sheets rows",
  /** The stand-in on `origin`; `keep(message)` shows a message on the sink's page. */
  start(origin, keep) {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const clientEmail = "gatepost@local-sink.iam.gserviceaccount.com";
    const tokenUri = `${origin}/sheets/token`;
    const sheetsKey = JSON.stringify({
      type: "service_account",
      client_email: clientEmail,
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
      private_key_id: "local-sink",
      token_uri: tokenUri,
    });
    const verifyKey = publicKey;
    const tokens = new Set();
    const sheets = new Map();

    /** Answers a request under /sheets: { status, body } or null when the path is not its. */
    function handle(method, path, headers, body) {
      if (path === "/sheets/token" && method === "POST") {
        const claims = verifyJwt(new URLSearchParams(body).get("assertion"), verifyKey);
        const now = Date.now() / 1000;
        if (!claims || claims.iss !== clientEmail || claims.aud !== tokenUri || claims.scope !== SCOPE || !(claims.exp > now)) {
          return {
            status: 400,
            body: { error: "invalid_grant", error_description: "the JWT does not verify with the local service account" },
          };
        }
        const token = `ya29.local-${randomBytes(8).toString("hex")}`;
        tokens.add(token);
        return { status: 200, body: { access_token: token, expires_in: 3599, token_type: "Bearer" } };
      }
      const sheet = /^\/sheets\/v4\/spreadsheets\/([^/]+)\/values\/([^/]+?)(:append)?$/.exec(path);
      if (sheet) {
        if (!tokens.has(String(headers.authorization ?? "").replace(/^Bearer /, "")))
          return { status: 401, body: { error: { code: 401 } } };
        const tab = /^'(.*)'!/.exec(decodeURIComponent(sheet[2]))?.[1] ?? "Sheet1";
        const key = `${sheet[1]}/${tab}`;
        const rows = sheets.get(key) ?? [];
        if (!sheet[3]) return { status: 200, body: rows.length ? { values: [rows[0]] } : {} };
        const values = JSON.parse(body).values ?? [];
        sheets.set(key, [...rows, ...values]);
        const header = sheets.get(key)[0] ?? [];
        for (const row of values.slice(rows.length === 0 ? 1 : 0)) {
          keep({
            kind: "sheets",
            at: new Date().toISOString(),
            title: `row ${sheets.get(key).indexOf(row) + 1} of tab ${tab}`,
            headers: [["Spreadsheet", sheet[1]]],
            text: row.map((cell, i) => `${header[i] ?? i + 1}: ${cell}`).join("\n"),
            reference: typeof row[0] === "string" ? row[0] : null,
          });
        }
        return { status: 200, body: { updates: { updatedRows: values.length } } };
      }
      return null;
    }
    return { sheetsKey, handle, sheets };
  },
};
