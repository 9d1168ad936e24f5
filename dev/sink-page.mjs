import escapeHtml from "escape-html";

// How the local sink shows what it got, as a person would read it: an e-mail's sender, recipients, subject
// and plain-text part, a refusal, and the page (each kind's own messages: its sink.mjs). The MIME reading
// here is deliberately small (home-made, for a dev tool): it only has to read what Gatepost itself writes
// (mimetext: multipart/alternative, base64 parts, RFC 2047 subjects), and shows the raw text when it cannot.

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

function decodeWords(value) {
  return value.replace(/=\?utf-8\?B\?([^?]*)\?=/gi, (_, b64) => Buffer.from(b64, "base64").toString("utf8"));
}

function splitHead(text) {
  const at = text.search(/\r?\n\r?\n/);
  const head = at < 0 ? text : text.slice(0, at);
  const body = at < 0 ? "" : text.slice(at).replace(/^\r?\n\r?\n/, "");
  const headers = [];
  for (const line of head.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && headers.length > 0) headers[headers.length - 1][1] += ` ${line.trim()}`;
    else if (line.includes(":")) headers.push([line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]);
  }
  return { headers, body };
}

function header(headers, name) {
  return headers.find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1] ?? "";
}

function decodePart(part) {
  const encoding = header(part.headers, "Content-Transfer-Encoding").toLowerCase();
  return encoding === "base64" ? Buffer.from(part.body.replace(/\s+/g, ""), "base64").toString("utf8") : part.body;
}

/** An e-mail as a person reads it: From, To, Reply-To, Subject and the plain-text part. */
export function describeEmail(raw) {
  const top = splitHead(raw);
  const type = header(top.headers, "Content-Type");
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  const parts = boundary
    ? top.body
        .split(`--${boundary}`)
        .slice(1)
        .filter((p) => !p.startsWith("--"))
        .map((p) => splitHead(p.replace(/^\r?\n/, "")))
    : [top];
  const textPart = parts.find((p) => /text\/plain/i.test(header(p.headers, "Content-Type"))) ?? parts[0];
  const htmlPart = parts.find((p) => /text\/html/i.test(header(p.headers, "Content-Type")));
  const shown = ["From", "To", "Reply-To", "Subject", "Auto-Submitted"]
    .map((name) => [name, decodeWords(header(top.headers, name))])
    .filter(([, value]) => value !== "");
  const text = textPart ? decodePart(textPart).trimEnd() : raw;
  return {
    kind: "email",
    at: new Date().toISOString(),
    title: decodeWords(header(top.headers, "Subject")) || "(no subject)",
    headers: shown,
    text,
    html: htmlPart ? decodePart(htmlPart) : null,
    reference: UUID.exec(text)?.[0] ?? null,
    raw,
  };
}

/** An e-mail an HTTP provider was asked to send (its JSON), kept as a person would read it. */
export function describeProviderEmail(provider, body) {
  const resend = provider === "resend";
  const headerList = resend ? Object.entries(body.headers ?? {}) : (body.Headers ?? []).map((h) => [h.Name, h.Value]);
  const subject = String((resend ? body.subject : body.Subject) ?? "");
  const shown = [
    ["From", resend ? body.from : body.From],
    ["To", resend ? (body.to ?? []).join(", ") : body.To],
    ["Reply-To", resend ? body.reply_to : body.ReplyTo],
    ["Subject", subject],
    ...headerList.filter(([name]) => name === "Auto-Submitted"),
    ["Sent through", provider],
  ].filter(([, value]) => value);
  const text = String((resend ? body.text : body.TextBody) ?? "").trimEnd();
  return {
    kind: "email",
    at: new Date().toISOString(),
    title: subject || "(no subject)",
    headers: shown,
    allHeaders: Object.fromEntries(headerList),
    text,
    html: (resend ? body.html : body.HtmlBody) ?? null,
    reference: UUID.exec(text)?.[0] ?? null,
    provider,
  };
}

/** A delivery the sink refused (its record, with the reason), as a person reads it on the page. */
export function describeRefusal({ at, kind, id, status, reason, form }) {
  return {
    kind: "refused",
    at,
    title: `${kind} refused with ${status}${form ? ` (form ${form})` : ""}`,
    headers: [...(id ? [["webhook-id", id]] : []), ["Why", reason]],
    text: "Gatepost's delivery timeline shows this attempt as failed, and it will try again.",
    reference: null,
  };
}

/**
 * The text escaped, with each http(s) address made a link, so a download link or the console's link
 * opens from the page. Only http(s); a trailing ")" or "." belongs to the sentence, not the link.
 */
function linkify(text) {
  let html = "";
  let at = 0;
  for (const match of text.matchAll(/\bhttps?:\/\/[^\s<>"']+/g)) {
    const link = match[0].replace(/[).,;:]+$/, "");
    html += `${escapeHtml(text.slice(at, match.index))}<a href="${escapeHtml(link)}" rel="noreferrer">${escapeHtml(link)}</a>`;
    at = match.index + link.length;
  }
  return html + escapeHtml(text.slice(at));
}

/** "a, b and c". */
function listed(words) {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/**
 * The sink's page: every message, newest first, escaped (it shows what strangers typed), readable on a
 * phone; `shows` names what each kind's messages are (each kind's sink.mjs), for the intro.
 */
export function renderMessagesPage(messages, shows) {
  const items = [...messages]
    .map((message, order) => ({ message, order }))
    .sort((a, b) => b.message.at.localeCompare(a.message.at) || b.order - a.order)
    .map(({ message: m }) => {
      const headers = (m.headers ?? []).map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("");
      return `<article><h2><span class="kind">${escapeHtml(m.kind)}</span> ${escapeHtml(m.title)}</h2><p class="at">${escapeHtml(m.at)}</p>${headers ? `<dl>${headers}</dl>` : ""}<pre>${linkify(m.text)}</pre></article>`;
    })
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta http-equiv="refresh" content="5"><link rel="icon" href="data:,"><title>Gatepost local sink</title>
<style>body{font:15px/1.45 system-ui,sans-serif;max-width:48rem;margin:1rem auto;padding:0 1rem}h1{font-size:1.4rem}h2{font-size:1.1rem}article{border:1px solid #ccc;border-radius:6px;padding:.5rem .75rem;margin:1rem 0}h2,dd,pre,p{overflow-wrap:anywhere}.kind{font-size:.75rem;text-transform:uppercase;background:#eee;padding:.1rem .4rem;border-radius:4px}.at{color:#555;margin:0}dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.1rem 1rem}dt{font-weight:600}dd{margin:0}pre{white-space:pre-wrap;font:inherit}</style></head>
<body><h1>Messages Gatepost would have sent</h1><p>${escapeHtml(listed(shows))} from <code>npm start</code>, newest first. Nothing here left this machine. This page reloads every 5 s.</p>
${items || "<p>Nothing yet: send a form.</p>"}</body></html>`;
}
