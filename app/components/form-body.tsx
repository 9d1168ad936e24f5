import { useEffect, useState, type ReactNode, type RefObject } from "react";
import { flushSync } from "react-dom";
import type { FieldDef, FormDef } from "~/forms/schema";
import { FormField } from "~/components/form-field";
import { askedInForm } from "~/lib/conditions/page-values";
import { fill } from "~/lib/text/fill";
import type { FieldTexts } from "~/lib/i18n/messages/types";

// A form's fields, with its conditions and steps (docs/forms.md#conditions, ADRs 127 and 128). The server
// decides what is asked; the page follows the same rules (app/lib/conditions/) as the person answers: a
// field not asked is disabled, so it is neither checked nor sent, and one newly asked is announced
// politely. What shows is CSS's: `[data-asked="no"]` and steps not current are hidden while scripting
// is on (before hydration too: no shift); without JavaScript every field and step shows as one page.

interface Props {
  /** Each field's `when` its whole condition, groups' included (withConditions, app/lib/conditions/evaluate.ts). */
  form: Pick<FormDef, "fields" | "steps">;
  formRef: RefObject<HTMLFormElement | null>;
  /** The fields asked on the answers the page starts from (the server's reading, app/lib/conditions/page-values.ts). */
  asked: readonly string[];
  values: Record<string, string>;
  errors: Record<string, string>;
  texts: FieldTexts;
  hydrated: boolean;
  /** The captcha and Send, shown with the last step; `mounted` is false while another step shows. */
  finish: (mounted: boolean) => ReactNode;
}

export function FormBody({ form, formRef, values, errors, texts, hydrated, finish, ...props }: Props) {
  const { page } = texts;
  const [asked, setAsked] = useState(() => new Set(props.asked));
  const [announced, setAnnounced] = useState("");
  // Without JavaScript (and so on the server) every step shows; with it, a step with nothing asked is skipped.
  const steps = (form.steps ?? []).filter((step) => !hydrated || step.fields.some((name) => asked.has(name)));
  const firstError = steps.findIndex((step) => step.fields.some((name) => errors[name]));
  const [current, setCurrent] = useState(Math.max(0, firstError));
  const update = () => {
    const now = askedInForm(form.fields, formRef.current!);
    const added = form.fields.filter((field) => now.has(field.name) && !asked.has(field.name));
    if (added.length > 0) setAnnounced(fill(page.revealed, { labels: added.map((field) => field.label).join(", ") }));
    setAsked(now);
  };
  useEffect(() => {
    update();
    if (firstError >= 0) setCurrent(firstError);
    // A new answer from the server only (and the first render, on what the browser may have restored).
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `update` and `firstError` follow from it
  }, [errors]);

  const field = (def: FieldDef) => {
    const shown = <FormField key={def.name} field={def} value={values[def.name] ?? ""} error={errors[def.name]} texts={texts} />;
    const on = asked.has(def.name);
    return def.when ? (
      <fieldset key={def.name} className="asked" data-asked={on ? "yes" : "no"} disabled={hydrated && !on}>
        {shown}
      </fieldset>
    ) : (
      shown
    );
  };
  const at = Math.min(current, steps.length - 1);
  // Shown at once, so focus can go to the step's heading: the person hears where they are.
  const moveTo = (index: number) => {
    flushSync(() => setCurrent(index));
    document.getElementById(`step-${index}`)?.focus();
  };
  return (
    <div onChange={update}>
      {form.steps
        ? steps.map((step, index) => (
            <section key={step.fields[0]} className="step" data-current={index === at ? "yes" : "no"}>
              <p className="step-progress">{fill(page.stepProgress, { step: index + 1, count: steps.length })}</p>
              <h2 id={`step-${index}`} tabIndex={-1}>
                {step.title}
              </h2>
              {step.fields.map((name) => field(form.fields.find((def) => def.name === name)!))}
              <div className="step-nav">
                {index > 0 ? (
                  <button type="button" className="secondary" onClick={() => moveTo(index - 1)}>
                    {page.stepBack}
                  </button>
                ) : null}
                {index < steps.length - 1 ? (
                  <button
                    type="button"
                    onClick={(event) => checkStep(event.currentTarget.parentElement!.parentElement!) && moveTo(index + 1)}
                  >
                    {page.stepNext}
                  </button>
                ) : null}
              </div>
              {index === steps.length - 1 ? finish(!hydrated || index === at) : null}
            </section>
          ))
        : null}
      {form.steps ? null : form.fields.map(field)}
      {form.steps ? null : finish(true)}
      <p className="visually-hidden" aria-live="polite">
        {announced}
      </p>
    </div>
  );
}

/** Whether a step's enabled controls pass the browser's checks (required, types, ranges); if not, the first problem shows. */
function checkStep(step: HTMLElement): boolean {
  // Disabled controls are barred from constraint validation, so a field not asked never matches.
  const invalid = step.querySelector<HTMLInputElement>("[name]:invalid");
  invalid?.reportValidity();
  invalid?.focus();
  return !invalid;
}
