// Which mailbox an address reaches, for counting confirmations (ADR 025): case, "+tags" and dots fold on every
// domain; a "-tag" does not, since "mary-jane" and "mary-ann" are usually two people.

/** The mailbox `address` reaches, folded as above; null when it is not a whole address. */
export function foldMailbox(address: string): string | null {
  const folded = address.trim().normalize("NFKC").toUpperCase().toLowerCase().normalize("NFC");
  const at = folded.lastIndexOf("@");
  if (at <= 0 || at === folded.length - 1) return null;
  const [rawLocal, rawDomain] = [folded.slice(0, at), folded.slice(at + 1).replace(/\.$/, "")];
  const plus = rawLocal.indexOf("+");
  const local = (plus > 0 ? rawLocal.slice(0, plus) : rawLocal).replaceAll(".", "");
  const domain = rawDomain === "googlemail.com" ? "gmail.com" : rawDomain;
  return local && domain ? `${local}@${domain}` : null;
}
