import { Link } from "@remix-run/react";
import type { FormDef } from "~/forms/schema";
import type { KindTextsView } from "~/lib/form-editor/kind-texts.server";
import { Check, Input, MB, TextArea, num } from "~/components/admin/form-editor/inputs";
import { exactOrigins } from "~/lib/http/origin";

// The form's own texts in view; its limits, address and languages folded under a summary that names
// them, since a form sets them once; each kind's texts (a confirmation's subject and body) likewise,
// open when set. Native <details>: they open without JavaScript and with the keyboard.

export function FormSettings({ draft, onTitle }: { draft: FormDef; onTitle: (title: string) => void }) {
  return (
    <fieldset className="editor-section">
      <legend>The form</legend>
      <Input
        id="e-title"
        name="title"
        label="Title"
        defaultValue={draft.title}
        maxLength={120}
        required
        onChange={(e) => onTitle(e.target.value)}
      />
      <div className="editor-grid wide">
        <TextArea
          id="e-description"
          name="description"
          label="Description"
          hint="Shown under the title."
          defaultValue={draft.description}
          maxLength={1000}
          rows={2}
        />
        <TextArea
          id="e-success"
          name="successMessage"
          label="Success message"
          hint="Shown on the thank-you page."
          defaultValue={draft.successMessage}
          maxLength={1000}
          rows={2}
        />
      </div>
      <details className="editor-more">
        <summary>Retention, rate limits, uploads, redirect and languages</summary>
        <div className="editor-grid">
          <Input
            id="e-retention"
            name="retentionDays"
            label="Keep submissions for (days)"
            inputMode="numeric"
            defaultValue={num(draft.retentionDays)}
          />
          <Input
            id="e-per-minute"
            name="perMinute"
            label="Posts per minute per network"
            hint="Empty: the site's default."
            inputMode="numeric"
            defaultValue={num(draft.rateLimit?.perMinute)}
          />
          <Input
            id="e-per-day"
            name="perDay"
            label="Posts per day per network"
            hint="Empty: the site's default."
            inputMode="numeric"
            defaultValue={num(draft.rateLimit?.perDay)}
          />
          <Input
            id="e-upload"
            name="maxUploadMb"
            label="All files of one submission (MB)"
            hint="Forms with file fields; 25 when empty."
            inputMode="decimal"
            defaultValue={num(draft.maxUploadBytes, MB)}
          />
        </div>
        <Input
          id="e-redirect"
          name="redirectUrl"
          label="Redirect URL"
          hint="Where a plain HTML post from another site lands after success (https)."
          type="url"
          defaultValue={draft.redirectUrl ?? ""}
          maxLength={2000}
        />
        {/* One place sets the sites: the Embed page (ADR 108). A definition's own exact origins ride along unchanged. */}
        <input type="hidden" name="allowedOrigins" value={exactOrigins(draft.allowedOrigins).join(" ")} />
        <p className="field">
          Other sites that may embed or post to this form are set on its <Link to={`/admin/forms/${draft.id}/embed`}>Embed page</Link>.
        </p>
        <Check id="e-public" name="public" label="List this form on the site's front page" defaultChecked={draft.public === true} />
        <Input
          id="e-languages"
          name="languages"
          label="Languages"
          hint="The languages the form is offered in, its own texts' first, separated by spaces: en de fr es it pt nl pl ja ar."
          defaultValue={(draft.languages ?? []).join(" ")}
        />
        <TextArea
          id="e-translations"
          name="translations"
          label="Translations (JSON)"
          hint='The texts in each other language, e.g. {"de": {"title": "Kontakt", "fields": {"email": {"label": "E-Mail"}}}} (docs/forms.md#languages).'
          defaultValue={draft.translations ? JSON.stringify(draft.translations, null, 2) : ""}
        />
        <TextArea
          id="e-spam"
          name="spam"
          label="Spam rules (JSON)"
          hint='Rules and the filter threshold, e.g. {"rules": [{"kind": "links", "max": 2, "action": "quarantine"}], "threshold": 0.9} (docs/forms.md#spam).'
          defaultValue={draft.spam ? JSON.stringify(draft.spam, null, 2) : ""}
        />
      </details>
    </fieldset>
  );
}

/** A kind's own texts (a confirmation's subject and text), posted as `<kind>.<key>`; all empty: the kind is not in the form. */
export function KindTexts({ section, draft }: { section: KindTextsView; draft: FormDef }) {
  const own = draft.destinations.find((d) => d.kind === section.kind) as Readonly<Record<string, unknown>> | undefined;
  return (
    <details className="editor-section editor-more" open={own !== undefined}>
      <summary>{section.legend}</summary>
      <p className="small">{section.intro}</p>
      {section.needs.map((need) => (
        <p key={need} className="small">
          {need}
        </p>
      ))}
      {section.fields.map((field) => {
        const props = {
          id: `e-${section.kind}-${field.key}`,
          name: `${section.kind}.${field.key}`,
          label: field.label,
          hint: field.hint,
          defaultValue: typeof own?.[field.key] === "string" ? (own[field.key] as string) : "",
          maxLength: field.max,
        };
        return field.multiline ? <TextArea key={field.key} {...props} rows={4} /> : <Input key={field.key} {...props} />;
      })}
    </details>
  );
}
