import type { FieldDef, FieldValue } from "~/forms/schema";

// Sample values for a form's fields: the console's "Send a test" and a subscription's sample (ADR 123).

/** A value each field accepts, or close to it (a test shows the delivery, not the validation). */
export function sampleValue(field: FieldDef): FieldValue {
  switch (field.type) {
    case "checkbox":
      return true;
    case "number":
      return field.min ?? field.max ?? 1;
    case "email":
      return "test@example.org";
    case "url":
      return "https://example.org/";
    case "select":
      return field.options?.[0]?.value ?? null;
    case "file":
      return [];
    case "textarea":
      return "This is a test sent from the Gatepost console.";
    default:
      return "Test value";
  }
}
