import type { DestinationKind } from "~/forms/schema";
import type { KindText } from "~/lib/destinations/kind";
import { KIND_SPECS } from "~/lib/destinations/registry";

/** A kind's own texts as the editor shows them (its section, what it needs to work), sent with the page's data. */
export interface KindTextsView {
  kind: DestinationKind;
  legend: string;
  intro: string;
  needs: string[];
  fields: readonly KindText[];
}

/** Every kind with texts of its own, in the registry's order: the editor's sections after the fields. */
export function kindTextsViews(): KindTextsView[] {
  return KIND_SPECS.flatMap((spec) =>
    spec.texts
      ? [{ kind: spec.kind, ...spec.texts, needs: spec.settings.flatMap((setting) => (setting.needs ? [setting.needs] : [])) }]
      : [],
  );
}
