// The labelled set the spam bench replays (BENCH_ONLY=spam): contact-form messages written by a seeded,
// deterministic generator from the patterns public reports describe of form spam (SEO and link-building
// pitches, "I noticed your website" outsourcing offers, crypto and loan offers, pharmacy and casino
// links, fake invoices and guest-post requests, often from disposable or free-mail senders, with links)
// and of what people send a small business (quotes, orders, bookings, support, jobs). Nothing copied
// from a corpus: every message is made here, so the set ships with the code.

/** mulberry32, as tests/support/prng.ts. */
function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const pick = (items) => items[Math.floor(next() * items.length)];
  return { next, pick, int: (n) => Math.floor(next() * n) };
}

const FIRST = [
  "Anna",
  "Ben",
  "Chloe",
  "David",
  "Elena",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jonas",
  "Kemi",
  "Liam",
  "Maria",
  "Noah",
  "Olga",
  "Pedro",
  "Quinn",
  "Rosa",
  "Sam",
  "Tara",
];
const LAST = ["Smith", "García", "Müller", "Okafor", "Tanaka", "Rossi", "Novak", "Dubois", "Kowalski", "Silva", "Jensen", "Nguyen"];
const HAM_DOMAINS = [
  "gmail.com",
  "outlook.com",
  "yahoo.com",
  "icloud.com",
  "proton.me",
  "acme-builders.co.uk",
  "studio-lumen.de",
  "greenleaf.org",
  "northwind.io",
  "bakery-rossi.it",
];
const SPAM_DOMAINS = [
  "gmail.com",
  "outlook.com",
  "mailinator.com",
  "guerrillamail.com",
  "seo-rank-pros.xyz",
  "growth-agency.top",
  "cryptoyield.biz",
  "leadgen-experts.site",
  "yopmail.com",
  "webdesign-hub.online",
];
const PRODUCTS = [
  "oak table",
  "wedding cake",
  "roof repair",
  "logo design",
  "bike service",
  "garden fence",
  "piano lessons",
  "kitchen tiles",
  "dog grooming",
  "tax return",
];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "next week", "the 14th", "June 3rd"];

const HAM = [
  (r) => `Hello, could you send me a quote for a ${r.pick(PRODUCTS)}? We would need it by ${r.pick(DAYS)}. Thanks!`,
  (r) => `Hi, I ordered the ${r.pick(PRODUCTS)} last month (order ${1000 + r.int(9000)}) and wanted to ask when it ships.`,
  (r) => `Is there any chance to book an appointment on ${r.pick(DAYS)} around ${8 + r.int(10)}:00? My phone number is below.`,
  (r) =>
    `Good morning, do you still have openings for the ${r.pick(["part-time", "weekend", "summer"])} job you posted? I have ${1 + r.int(9)} years of experience.`,
  (r) => `Thank you for the ${r.pick(PRODUCTS)}, it arrived in perfect shape. One question: how should I clean it?`,
  (r) => `Hi there, my invoice ${r.int(90000)} shows the wrong address. Could you correct it to our office? Best regards.`,
  (r) => `We are planning a party for ${10 + r.int(80)} people on ${r.pick(DAYS)}. Could you cater, and what would it cost?`,
  (r) =>
    `Hello! I found your website through a friend. Do you deliver to ${r.pick(["Leeds", "Lyon", "Porto", "Graz", "Utrecht", "Kraków"])}?`,
  (r) => `I can't log in to my account since ${r.pick(DAYS)}; the reset e-mail never arrives. Can you help?`,
  (r) => `Could you tell me whether the ${r.pick(PRODUCTS)} comes in other colours? The photos on the site only show one.`,
];
const SPAM = [
  (r) =>
    `Hi, I noticed your website is not ranking on the first page of Google. Our SEO team can get you to #1 in ${2 + r.int(6)} weeks, guaranteed. Reply for a free audit: https://${r.pick(SPAM_DOMAINS)}/audit`,
  (r) =>
    `We offer high quality backlinks from DA ${50 + r.int(40)}+ sites. Boost your domain authority today! Packages from $${49 + r.int(200)}: https://${r.pick(SPAM_DOMAINS)}/links`,
  (r) =>
    `Earn ${5 + r.int(30)}% daily with our bitcoin trading bot. Withdraw anytime, no risk. Join now https://${r.pick(SPAM_DOMAINS)}/invest?ref=${r.int(99999)}`,
  (r) =>
    `Hello, I am a web developer from ${r.pick(["India", "Pakistan", "Bangladesh", "Vietnam"])}. I can redesign your website and mobile app at very affordable price. Shall I send portfolio?`,
  (r) =>
    `Need fast business funding? Get approved for up to $${50 + r.int(450)},000 in 24 hours, no credit check. Apply: https://${r.pick(SPAM_DOMAINS)}/loan`,
  (r) =>
    `Buy cheap viagra and cialis online without prescription, ${r.int(70) + 10}% off, discreet worldwide shipping https://${r.pick(SPAM_DOMAINS)}/pharmacy`,
  (r) =>
    `Hi, we would like to publish a guest post on your blog with a dofollow link. We pay $${20 + r.int(80)} per article. Please share your price list.`,
  (r) =>
    `Your invoice #${r.int(999999)} is overdue. Please review the attached payment details at https://${r.pick(SPAM_DOMAINS)}/invoice to avoid service suspension.`,
  (r) =>
    `Get ${100 + r.int(900)} free spins at the best online casino! Bonus code WIN${r.int(999)}. Play now https://${r.pick(SPAM_DOMAINS)}/casino`,
  (r) =>
    `Are you interested in generating more leads for your business? We provide targeted B2B email lists and lead generation services. Reply YES for a free sample of ${100 + r.int(900)} leads.`,
];

function sender(r, domains) {
  const first = r.pick(FIRST);
  const last = r.pick(LAST);
  const local = `${first}.${last}`.toLowerCase().normalize("NFD").replace(/\p{M}/gu, "") + (r.next() < 0.3 ? String(r.int(99)) : "");
  return { name: `${first} ${last}`, email: `${local}@${r.pick(domains)}` };
}

/**
 * `perKind` ham and `perKind` spam messages as the contact form's fields, shuffled, each `{ label, fields }`.
 * The same seed makes the same set.
 */
export function makeSpamSet({ seed = 54, perKind = 1100 } = {}) {
  const r = prng(seed);
  const set = [];
  for (let i = 0; i < perKind; i++) {
    set.push({ label: "ham", fields: { ...sender(r, HAM_DOMAINS), message: r.pick(HAM)(r) } });
    set.push({ label: "spam", fields: { ...sender(r, SPAM_DOMAINS), message: r.pick(SPAM)(r) } });
  }
  for (let i = set.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [set[i], set[j]] = [set[j], set[i]];
  }
  return set;
}

export const SPAM_SET_SOURCE =
  "generated (bench/lib/spam-set.mjs, seed 54): contact-form messages written from the patterns public reports describe of form spam and of real enquiries; no corpus";
