/** The site's name with its logo, or Gatepost's mark when it has none; both link home. */
export function SiteHeader({ name, logoUrl }: { name: string; logoUrl: string | null }) {
  return (
    <header className="site">
      <a href="/" className="site-name">
        {logoUrl ? (
          <img src={logoUrl} alt="" height={32} className="site-logo" />
        ) : (
          <svg className="site-mark" viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false">
            <rect width="32" height="32" rx="8" className="site-mark-bg" />
            <path d="M9 24V12a7 7 0 0 1 14 0v12M16 24v-7" className="site-mark-gate" />
          </svg>
        )}
        <span>{name}</span>
      </a>
    </header>
  );
}
