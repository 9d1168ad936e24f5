import escape from "escape-html";
import type { FieldDef, FormDef } from "~/forms/schema";
import { messagesOf } from "~/lib/i18n/catalogue.server";
import { fileLimitsText } from "~/lib/i18n/file-limits";
import type { Lang } from "~/lib/text/languages";
import { languagesOf, localizeForm } from "~/lib/i18n/localize-form";
import { PLAIN_HONEYPOT_FIELD } from "~/lib/forms/field-names";
import { acceptAttribute, fileLimitsOf } from "~/lib/uploads/file-types";

// What the console's Embed section hands out: the form as plain HTML posting to the public API, and the script
// tag of /embed.js. Everything the owner typed is escaped for where it goes (ADR 076).

export interface SnippetSite {
  origin: string;
  siteKey: string;
  scriptUrl: string;
}

/** JSON for an inline <script>: no "</script>" or "<!--" can end it early. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function attrs(values: Record<string, string | number | boolean | undefined>): string {
  return Object.entries(values)
    .filter(([, value]) => value !== undefined && value !== false)
    .map(([name, value]) => (value === true ? ` ${name}` : ` ${name}="${escape(String(value))}"`))
    .join("");
}

function fieldHtml(formId: string, field: FieldDef, lang: Lang): string {
  const page = messagesOf(lang).page;
  const id = `gp-${formId}-${field.name}`;
  if (field.type === "hidden") return `  <input${attrs({ type: "hidden", name: field.name, value: "" })}>`;
  const limits = field.type === "file" ? fileLimitsText(field, { lang, page }) : null;
  const hintIds = [field.hint ? `${id}-hint` : undefined, limits ? `${id}-limits` : undefined].filter(Boolean).join(" ") || undefined;
  const common = { id, name: field.name, required: field.required === true, "aria-describedby": hintIds, autocomplete: field.autocomplete };
  const hint = field.hint ? `\n    <small id="${id}-hint">${escape(field.hint)}</small>` : "";
  const limitsLine = limits ? `\n    <small id="${id}-limits">${escape(limits)}</small>` : "";
  const optional = field.required ? "" : escape(page.optional);
  if (field.type === "checkbox") {
    return `  <p>
    <input${attrs({ type: "checkbox", value: "on", ...common })}>
    <label for="${id}">${escape(field.label)}</label>${hint}
  </p>`;
  }
  let control: string;
  if (field.type === "textarea") {
    control = `<textarea${attrs({ ...common, rows: 6, minlength: field.minLength, maxlength: field.maxLength })}></textarea>`;
  } else if (field.type === "select") {
    const options = [
      `<option value="">${escape(page.choose)}</option>`,
      ...(field.options ?? []).map((o) => `<option${attrs({ value: o.value })}>${escape(o.label)}</option>`),
    ];
    control = `<select${attrs(common)}>\n      ${options.join("\n      ")}\n    </select>`;
  } else if (field.type === "file") {
    const fileLimits = fileLimitsOf(field);
    control = `<input${attrs({ type: "file", ...common, accept: acceptAttribute(fileLimits.types), multiple: fileLimits.maxFiles > 1 })}>`;
  } else {
    const number = field.type === "number";
    control = `<input${attrs({ type: field.type, ...common, minlength: number ? undefined : field.minLength, maxlength: number ? undefined : field.maxLength, min: field.min, max: field.max, inputmode: number ? "decimal" : undefined })}>`;
  }
  return `  <p>
    <label for="${id}">${escape(field.label)}${optional}</label>${hint}${limitsLine}
    ${control}
  </p>`;
}

/** The form as HTML for a static site, in `lang`: a plain form without its script, posting by fetch with it. */
export function staticFormHtml(published: FormDef, site: SnippetSite, lang: Lang = languagesOf(published)[0]!): string {
  const form = localizeForm(published, lang);
  const t = messagesOf(lang).page;
  const fnId = form.id.replace(/-/g, "_");
  const action = `${site.origin}/api/forms/${form.id}/submissions?lang=${lang}`;
  const multipart = form.fields.some((field) => field.type === "file");
  const config = { success: form.successMessage, sending: t.sending, send: t.send };
  return `<form${attrs({ id: `gp-${form.id}`, method: "post", action, enctype: multipart ? "multipart/form-data" : undefined, lang })}>
${form.fields.map((field) => fieldHtml(form.id, field, lang)).join("\n")}
  <!-- A trap for bots, hidden from people: a post that fills it is kept aside, never delivered. -->
  <input${attrs({ type: "text", name: PLAIN_HONEYPOT_FIELD, tabindex: -1, autocomplete: "off", "aria-hidden": "true", style: "position:absolute;left:-9999px" })}>
  <div${attrs({ class: "cf-turnstile", "data-sitekey": site.siteKey, "data-action": form.id, "data-language": lang, "data-callback": `gatepostReady_${fnId}` })}></div>
  <noscript><p>${escape(t.captcha.noscript)}</p></noscript>
  <div role="alert" data-gatepost-problem hidden></div>
  <button type="submit">${escape(t.send)}</button>
</form>
<script${attrs({ src: site.scriptUrl, async: true, defer: true })}></script>
<script>
(function () {
  var form = document.getElementById(${scriptJson(`gp-${form.id}`)});
  var text = ${scriptJson(config)};
  var button = form.querySelector('button[type="submit"]');
  var problem = form.querySelector("[data-gatepost-problem]");
  button.disabled = true;
  window[${scriptJson(`gatepostReady_${fnId}`)}] = function () { button.disabled = false; };
  form.addEventListener("submit", function (event) {
    if (!window.fetch) return;
    event.preventDefault();
    button.disabled = true;
    button.textContent = text.sending;
    fetch(form.action, { method: "POST", body: new FormData(form), headers: { Accept: "application/json" } })
      .then(function (res) { return res.json().then(function (body) { return { ok: res.ok, body: body }; }); })
      .then(function (answer) {
        if (answer.ok) {
          var done = document.createElement("p");
          done.setAttribute("role", "status");
          done.tabIndex = -1;
          done.textContent = text.success;
          form.replaceWith(done);
          done.focus();
          return;
        }
        problem.textContent = "";
        var title = document.createElement("p");
        title.textContent = answer.body.title || "";
        problem.appendChild(title);
        var list = document.createElement("ul");
        (answer.body.errors || []).forEach(function (error) {
          var item = document.createElement("li");
          item.textContent = error.detail;
          list.appendChild(item);
          var field = form.elements.namedItem(error.field);
          if (field && field.setAttribute) field.setAttribute("aria-invalid", "true");
        });
        if (list.children.length) problem.appendChild(list);
        problem.hidden = false;
        // Any refusal may have spent the token: the widget starts over, and Send waits for it.
        if (window.turnstile) window.turnstile.reset(form.querySelector(".cf-turnstile"));
        button.textContent = text.send;
      })
      .catch(function () {
        // No answer: let the browser post the form itself.
        form.submit();
      });
  });
})();
</script>
`;
}

/** The one-line embed: a frame of the form's own page, sized to its content. */
export function embedScriptTag(form: Pick<FormDef, "id" | "title">, site: Pick<SnippetSite, "origin">): string {
  return `<script${attrs({ src: `${site.origin}/embed.js`, "data-form": form.id, "data-title": form.title, async: true })}></script>`;
}
