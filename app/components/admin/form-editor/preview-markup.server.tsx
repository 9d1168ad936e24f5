import { renderToStaticMarkup } from "react-dom/server";
import { FormField } from "~/components/form-field";
import type { FormDef } from "~/forms/schema";
import { en } from "~/lib/i18n/messages/en";

/** The draft as the form's components render it, on the server so the editor ships none of their code (ADR 110); null when too broken. */
export function previewMarkup(draft: FormDef): string | null {
  try {
    return renderToStaticMarkup(
      <>
        <h3>{draft.title}</h3>
        {draft.description ? <p className="lead">{draft.description}</p> : null}
        {draft.fields.map((field, i) => (
          <FormField key={i} field={{ ...field, name: `preview-${field.name}` }} value="" texts={{ lang: "en", page: en.page }} />
        ))}
      </>,
    );
  } catch {
    return null;
  }
}
