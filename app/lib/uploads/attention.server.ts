import type { FormDef } from "~/forms/schema";
import type { Settings } from "~/lib/settings/settings.server";
import type { SettingProblem } from "~/lib/settings/setting-problem";
import { uploadsBucket } from "~/lib/storage/file-objects.server";
import { fileFieldsOf } from "~/lib/uploads/file-types";

// Only a site with a form that takes files needs the R2 binding and the link secret.

/** The problems of the uploads set-up, each naming what to set; empty when no form takes files. */
export function uploadProblems(env: { UPLOADS?: R2Bucket }, settings: Settings, forms: readonly FormDef[]): SettingProblem[] {
  const taking = forms.filter((form) => fileFieldsOf(form).length > 0).map((form) => form.id);
  if (taking.length === 0) return [];
  const problems: SettingProblem[] = [];
  if (!uploadsBucket(env)) {
    problems.push({
      variable: "UPLOADS",
      message: `The Worker has no R2 binding named UPLOADS, so ${taking.join(", ")} refuse posts with files: add it to wrangler.toml (docs/deploy.md).`,
    });
  }
  if (settings.uploads.linkSecrets.length === 0 && !settings.problems.some((p) => p.variable === "FILE_LINK_SECRET")) {
    problems.push({
      variable: "FILE_LINK_SECRET",
      message: "FILE_LINK_SECRET is not set, so notifications cannot link to uploaded files (the console still has them).",
    });
  }
  return problems;
}
