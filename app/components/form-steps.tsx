import { useRef, type ReactNode } from "react";
import type { FormStep } from "~/forms/schema";
import { fill } from "~/lib/text/fill";
import type { PageTexts } from "~/lib/i18n/messages/types";

// One step of a form in steps (docs/forms.md#steps). Without JavaScript every step shows, one after
// another, as one page; with it, only the current one, with Back and Next, its place in the form, and
// focus moved to its heading. Before hydration CSS alone shows the first (app/styles.css, `.step`).

interface Props {
  step: FormStep;
  /** Its position among the steps shown now (steps with no field asked are skipped), from 0. */
  index: number;
  count: number;
  current: boolean;
  /** With JavaScript, every step but the current one. */
  hidden: boolean;
  texts: Pick<PageTexts, "stepProgress" | "stepBack" | "stepNext">;
  onBack: () => void;
  onNext: (section: HTMLElement) => void;
  children: ReactNode;
}

export function FormStepSection({ step, index, count, current, hidden, texts, onBack, onNext, children }: Props) {
  const section = useRef<HTMLElement>(null);
  const last = index === count - 1;
  return (
    <section ref={section} className="step" data-current={current ? "yes" : "no"} hidden={hidden}>
      <p className="step-progress">
        <progress max={count} value={index + 1} aria-hidden="true" /> {fill(texts.stepProgress, { step: index + 1, count })}
      </p>
      <h2 id={stepHeadingId(index)} tabIndex={-1}>
        {step.title}
      </h2>
      {children}
      <div className="step-nav">
        {index > 0 ? (
          <button type="button" className="secondary" onClick={onBack}>
            {texts.stepBack}
          </button>
        ) : null}
        {last ? null : (
          <button type="button" onClick={() => section.current && onNext(section.current)}>
            {texts.stepNext}
          </button>
        )}
      </div>
    </section>
  );
}

/** Checks a step's enabled controls as the browser can (required, types, ranges): false shows the first problem. */
export function checkStep(section: HTMLElement): boolean {
  // Inputs, selects and text areas share these members; one type keeps the loop simple.
  const controls = [...section.querySelectorAll("input, select, textarea")] as HTMLInputElement[];
  for (const control of controls) {
    if (!control.disabled && !control.checkValidity()) {
      control.reportValidity();
      control.focus();
      return false;
    }
  }
  return true;
}

/** The id of the heading of the step at `index`, where focus goes when the person moves to it. */
export function stepHeadingId(index: number): string {
  return `step-${index}`;
}
