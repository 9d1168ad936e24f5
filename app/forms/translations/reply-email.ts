import type { Lang } from "~/lib/text/languages";

// The e-mail field the contact and apply forms share: the address replies go to. English is the
// forms' own text.
export const REPLY_EMAIL: Readonly<Record<Exclude<Lang, "en">, { label: string; hint: string }>> = {
  de: { label: "E-Mail-Adresse", hint: "Wir verwenden sie nur, um Ihnen zu antworten." },
  fr: { label: "Adresse e-mail", hint: "Nous l’utilisons uniquement pour vous répondre." },
  es: { label: "Correo electrónico", hint: "Solo lo usamos para responderte." },
  it: { label: "Indirizzo e-mail", hint: "Lo usiamo solo per risponderti." },
  pt: { label: "Endereço de e-mail", hint: "Só o usamos para lhe responder." },
  nl: { label: "E-mailadres", hint: "We gebruiken het alleen om u te antwoorden." },
  pl: { label: "Adres e-mail", hint: "Używamy go tylko, aby Ci odpowiedzieć." },
  ja: { label: "メールアドレス", hint: "ご返信にのみ使用します。" },
  ar: { label: "البريد الإلكتروني", hint: "نستخدمه فقط للرد عليك." },
};
