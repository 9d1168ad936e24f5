import sql from "sql-template-tag";
import { z } from "zod";
import { parseRows, statement } from "~/lib/storage/sql.server";

// The sites allowed to embed each form (migration 0041): origins and token hostnames as the console set
// them. The catalog reads every row with the forms (readCatalogRows), so a post pays no extra round trip.

export interface EmbedSites {
  origins: readonly string[];
  hostnames: readonly string[];
}

const List = z.string().transform((text): string[] => {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
  } catch {
    return [];
  }
});

export const EmbedRowSchema = z.object({ form_id: z.string(), origins: List, hostnames: List });

/** The statement reading every form's embed sites. */
export function embedRowsStatement(db: D1Database): D1PreparedStatement {
  return statement(db, sql`SELECT form_id, origins, hostnames FROM form_embed_sites ORDER BY form_id`);
}

/** Rows by form id. */
export function embedSitesByForm(results: readonly unknown[]): Map<string, EmbedSites> {
  return new Map(parseRows(EmbedRowSchema, results).map((row) => [row.form_id, { origins: row.origins, hostnames: row.hostnames }]));
}

/** Sets (or, with both lists empty, removes) a form's embed sites. Pure: the caller batches it. */
export function putEmbedSitesStatement(db: D1Database, formId: string, sites: EmbedSites, nowMs: number): D1PreparedStatement {
  if (sites.origins.length === 0 && sites.hostnames.length === 0) {
    return statement(db, sql`DELETE FROM form_embed_sites WHERE form_id = ${formId}`);
  }
  return statement(
    db,
    sql`INSERT INTO form_embed_sites (form_id, origins, hostnames, updated_at)
        VALUES (${formId}, ${JSON.stringify(sites.origins)}, ${JSON.stringify(sites.hostnames)}, ${nowMs})
        ON CONFLICT (form_id) DO UPDATE SET origins = excluded.origins, hostnames = excluded.hostnames, updated_at = excluded.updated_at`,
  );
}

/** One form's embed sites as stored now (the console reads past the catalog's copy). D1 errors throw. */
export async function readEmbedSites(db: D1Database, formId: string): Promise<EmbedSites> {
  const { results } = await statement(db, sql`SELECT form_id, origins, hostnames FROM form_embed_sites WHERE form_id = ${formId}`).all();
  return embedSitesByForm(results).get(formId) ?? { origins: [], hostnames: [] };
}
