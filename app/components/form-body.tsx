import { useEffect, useMemo, useState, type ReactNode, type RefObject } from "react";
import type { FieldDef, FormDef } from "~/forms/schema";
import { FormField } from "~/components/form-field";
import { checkStep, FormStepSection, stepHeadingId } from "~/components/form-steps";
import { flushSync } from "react-dom";
import { askedOnPage } from "~/lib/conditions/page-values";
import { conditionOf } from "~/lib/conditions/evaluate";
import { fill } from "~/lib/text/fill";
import type { FieldTexts } from "~/lib/i18n/messages/types";

// A form's fields, with its conditions and steps (docs/forms.md#conditions). The server decides what is
// asked; the page follows the same rules (app/lib/conditions/) as the person answers: a field not asked
// is hidden and disabled, so it is neither checked nor sent, and one newly asked is announced politely.
// Without JavaScript every field and step shows and the server drops what does not apply. Before
// hydration CSS hides what the last answer left unasked (`[data-asked="no"]`, app/styles.css).

type Shown = Pick<FormDef, "fields" | "groups" | "steps">;

interface Props {
  form: Shown;
  formRef: RefObject<HTMLFormElement | null>;
  values: Record<string, string>;
  errors: Record<string, string>;
  texts: FieldTexts;
  hydrated: boolean;
  /** The captcha and Send, shown with the last step; `mounted` is false while another step shows. */
  finish: (mounted: boolean) => ReactNode;
}

/** A field's entry as the page holds it: text, a checkbox as "on" or "", a file field as its count of files. */
function entryOf(form: HTMLFormElement | null, values: Record<string, string>, field: FieldDef): string | number {
  const control = form?.elements.namedItem(field.name);
  if (!(control instanceof HTMLInputElement || control instanceof HTMLSelectElement || control instanceof HTMLTextAreaElement)) {
    return values[field.name] ?? "";
  }
  if (control instanceof HTMLInputElement && control.type === "checkbox") return control.checked ? "on" : "";
  if (control instanceof HTMLInputElement && control.type === "file") return control.files?.length ?? 0;
  return control.value;
}

export function FormBody({ form, formRef, values, errors, texts, hydrated, finish }: Props) {
  const byName = useMemo(() => new Map(form.fields.map((field) => [field.name, field])), [form.fields]);
  const read = () => askedOnPage(form, (name) => entryOf(formRef.current, values, byName.get(name)!));
  const [asked, setAsked] = useState(() => askedOnPage(form, (name) => values[name] ?? ""));
  const [announced, setAnnounced] = useState("");
  // Without JavaScript (and so on the server) every step shows; with it, a step with nothing asked is skipped.
  const steps = form.steps ?? [];
  const visible = hydrated ? steps.filter((step) => step.fields.some((name) => asked.has(name))) : steps;
  const firstError = visible.findIndex((step) => step.fields.some((name) => errors[name]));
  const [current, setCurrent] = useState(Math.max(0, firstError));
  useEffect(() => {
    setAsked(read());
    if (firstError >= 0) setCurrent(firstError);
    // A new answer from the server only: `read` and `firstError` follow from it.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- recomputed from the DOM when the answer changes
  }, [errors]);

  useEffect(() => {
    const element = formRef.current;
    if (!element) return;
    const update = () =>
      setAsked((before) => {
        const now = read();
        const added = [...now].filter((name) => !before.has(name)).map((name) => byName.get(name)!.label);
        if (added.length > 0) setAnnounced(fill(texts.page.revealed, { labels: added.join(", ") }));
        return now;
      });
    element.addEventListener("input", update);
    element.addEventListener("change", update);
    return () => {
      element.removeEventListener("input", update);
      element.removeEventListener("change", update);
    };
  });

  const field = (def: FieldDef) => {
    const shown = <FormField key={def.name} field={def} value={values[def.name] ?? ""} error={errors[def.name]} texts={texts} />;
    if (!conditionOf(form, def)) return shown;
    const on = asked.has(def.name);
    return (
      <fieldset key={def.name} className="asked" data-asked={on ? "yes" : "no"} disabled={hydrated && !on} hidden={hydrated && !on}>
        {shown}
      </fieldset>
    );
  };
  const live = (
    <p className="visually-hidden" aria-live="polite">
      {announced}
    </p>
  );
  if (!form.steps) {
    return (
      <>
        {form.fields.map(field)}
        {live}
        {finish(true)}
      </>
    );
  }
  const shownAt = Math.min(current, visible.length - 1);
  // Shown at once, so focus can go to the step's heading: the person hears where they are.
  const moveTo = (index: number) => {
    flushSync(() => setCurrent(index));
    document.getElementById(stepHeadingId(index))?.focus();
  };
  const onLast = shownAt === visible.length - 1;
  return (
    <>
      {visible.map((step, index) => (
        <FormStepSection
          key={step.title}
          step={step}
          index={index}
          count={visible.length}
          current={index === shownAt}
          hidden={hydrated && index !== shownAt}
          texts={texts.page}
          onBack={() => moveTo(index - 1)}
          onNext={(section) => {
            if (checkStep(section)) moveTo(index + 1);
          }}
        >
          {step.fields.map((name) => field(byName.get(name)!))}
        </FormStepSection>
      ))}
      {live}
      <div className="step-finish" data-current={onLast ? "yes" : "no"} hidden={hydrated && !onLast}>
        {finish(!hydrated || onLast)}
      </div>
    </>
  );
}
