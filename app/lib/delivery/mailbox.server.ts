// Which mailbox an address reaches, for counting confirmations per mailbox (docs/decisions/025). The
// fold is deliberately wide: two addresses that fold together share one confirmation a day, which
// costs at most a courtesy e-mail to a rare pair of colleagues, while every variant left apart is one
// more e-mail an abuser can aim at the same inbox.
// - Case, everywhere, with Unicode case folding and compatibility forms (as erase by e-mail does).
// - A "+tag" in the local part, on every domain: Gmail, Outlook, iCloud, Fastmail, Proton and most
//   company servers deliver "name+anything" to "name".
// - Dots in the local part, on every domain, not only gmail.com: Google Workspace ignores them on a
//   company's own domain too, and which domains Google hosts cannot be seen without a DNS look-up.
// - googlemail.com is gmail.com.
// A "-tag" (Yahoo's disposable addresses, some qmail setups) is not folded: "mary-jane" and "mary-ann"
// are different people far more often than one person's tags.

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
