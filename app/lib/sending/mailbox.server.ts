// Which mailbox an address reaches, for counting confirmations (docs/decisions/025). Deliberately wide:
// folding too much costs a rare pair of colleagues a courtesy e-mail, too little gives an abuser one
// more e-mail per variant. Case, "+tags" and dots fold on every domain (Workspace ignores dots on
// company domains too); a "-tag" does not, since "mary-jane" and "mary-ann" are usually two people.

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
