import type { FieldValue, FormDef, StoredFile } from "~/forms/schema";
import type { Settings } from "~/lib/settings/settings.server";
import { filesKept, filesOf } from "~/lib/storage/file-objects.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
import { signFileLink, type FileLink } from "~/lib/uploads/file-links.server";

// The files a notification lists, each with a link signed at this attempt (docs/decisions/051); none
// for a submission quarantined on arrival, which kept no bytes.

export interface LinkedFile {
  field: string;
  label: string;
  file: StoredFile;
  /** null without PUBLIC_URL or FILE_LINK_SECRET: the file is then only in the console. */
  link: FileLink | null;
}

/** In the form's field order. Never throws. */
export async function linkedFiles(settings: Settings, form: FormDef, submission: StoredSubmission, nowMs: number): Promise<LinkedFile[]> {
  if (!filesKept(submission.quarantineReason)) return [];
  const fields = submission.fields as Readonly<Record<string, FieldValue>>;
  const order = [...form.fields.map((f) => f.name), ...Object.keys(fields).filter((name) => !form.fields.some((f) => f.name === name))];
  const found = order.flatMap((name) =>
    filesOf(fields[name]).map((file) => ({ field: name, label: form.fields.find((f) => f.name === name)?.label ?? name, file })),
  );
  return Promise.all(
    found.map(async (entry) => ({
      ...entry,
      link: await signFileLink({
        publicUrl: settings.publicUrl,
        secrets: settings.uploads.linkSecrets,
        submissionId: submission.id,
        fileId: entry.file.id,
        nowMs,
      }),
    })),
  );
}
