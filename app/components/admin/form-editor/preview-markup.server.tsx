import { renderToStaticMarkup } from "react-dom/server";
import { FormField } from "~/components/form-field";
import type { FormDef } from "~/forms/schema";
import { en } from "~/lib/i18n/messages/en";

/**
 * The draft as the form's own components render it, made on the server so the editor's page ships
 * none of their code (the JS budget, ADR 110): the page asks again as the author types. A preview
 * sends nothing and needs no script; React escapes every text, as on the form's page. A draft too
 * broken to render (its problems are listed beside it) gives null.
 */
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
